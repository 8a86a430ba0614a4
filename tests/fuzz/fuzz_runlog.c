/* libFuzzer target for librunlog: whatever bytes a caller passes as a name, key, string value,
 * JSON text or structured value (RL_T_STRV, RL_T_OBJ, RL_T_ARR), the line is either refused with
 * -EINVAL or is one valid JSON object on one line. */
#include <errno.h>
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
    /* Structured values: the input split at '\n' into strings (an RL_T_STRV), the same pieces
     * as keys of a nested object (repeated pieces are duplicate keys: refused), and a chain of
     * objects and arrays as deep as the first byte says (past RL_MAX_DEPTH: refused). */
    const char *piece[16];
    rl_field_t kv[16];
    size_t np = 0;
    char *cut = strdup(s);
    for (char *p = cut; np < 16;) {
        piece[np] = p;
        kv[np] = (np & 1) ? RL_JSON(p, p) : RL_STR(p, p);
        np++;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    int depth = size ? data[0] % (RL_MAX_DEPTH + 4) : 0;
    rl_field_t chain[RL_MAX_DEPTH + 4];
    chain[0] = RL_STRV("v", piece, np);
    for (int i = 1; i <= depth; i++)
        chain[i] = (i & 1) ? RL_OBJ("o", &chain[i - 1], 1) : RL_ARR("a", &chain[i - 1], 1);
    rl_field_t st[] = {chain[depth], RL_OBJ("kv", kv, np), RL_ARR("av", kv, np)};
    for (int i = 0; i < 4; i++) {
        long len = i == 0 ? rl_format_phase(line, sizeof line, s, (double)size / 3, f, 1)
                 : i == 1 ? rl_format_event(line, sizeof line, s, f + 1, 2)
                 : i == 2 ? rl_format_event(line, sizeof line, "m", m, 1)
                          : rl_format_event(line, sizeof line, "s", st, 3);
        if (i == 3 && depth > RL_MAX_DEPTH && len != -EINVAL)
            abort();
        if (len < 0)
            continue;
        if ((size_t)len >= sizeof line || line[len - 1] != '\n' || memchr(line, '\n', (size_t)len - 1))
            abort();
        struct json_tokener *tok = json_tokener_new_ex(64);
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
        struct json_object *o = json_tokener_parse_ex(tok, line, (int)len - 1);
        if (!o || json_tokener_get_parse_end(tok) != (size_t)len - 1 ||
            !json_object_is_type(o, json_type_object))
            abort();
        json_object_put(o);
        json_tokener_free(tok);
    }
    free(cut);
    free(s);
    return 0;
}
