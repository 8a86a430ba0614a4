/* libFuzzer target for librunlog: whatever bytes a caller passes as a name, key, string value or
 * JSON text, the line is either refused with -EINVAL or is one valid JSON object on one line. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0'; /* the API takes C strings: stop at the first NUL, as a caller's would */
    static char line[1 << 20];
    rl_field_t f[] = {RL_STR(s, s), RL_JSON("j", s), RL_DBL("d", size ? (double)data[0] / 7 : 0)};
    rl_field_t m[] = {RL_MERGE(s)};
    for (int i = 0; i < 3; i++) {
        long len = i == 0 ? rl_format_phase(line, sizeof line, s, (double)size / 3, f, 1)
                 : i == 1 ? rl_format_event(line, sizeof line, s, f + 1, 2)
                          : rl_format_event(line, sizeof line, "m", m, 1);
        if (len < 0)
            continue;
        if ((size_t)len >= sizeof line || line[len - 1] != '\n' || memchr(line, '\n', (size_t)len - 1))
            abort();
        struct json_tokener *tok = json_tokener_new();
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
        struct json_object *o = json_tokener_parse_ex(tok, line, (int)len - 1);
        if (!o || json_tokener_get_parse_end(tok) != (size_t)len - 1 ||
            !json_object_is_type(o, json_type_object))
            abort();
        json_object_put(o);
        json_tokener_free(tok);
    }
    free(s);
    return 0;
}
