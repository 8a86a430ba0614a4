/* libFuzzer target for smiprobe.c's parsers: whatever nvidia-smi prints (any driver, truncated,
 * garbage), the GPU list is valid JSON, the GPM list is "", a count or a JSON array of indexes,
 * the driver version and a rejected field's name lie within the output, and nothing crashes. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/rundir.h"
#include "smiprobe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_json(const char *s, bool allow_empty)
{
    if (allow_empty && !*s)
        return;
    struct json_tokener *tok = json_tokener_new();
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    /* the NUL too: a bare number (the GPM list's count) is complete only at the text's end */
    struct json_object *o = json_tokener_parse_ex(tok, s, (int)strlen(s) + 1);
    if (!o || json_tokener_get_error(tok) != json_tokener_success)
        abort();
    json_object_put(o);
    json_tokener_free(tok);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0'; /* mon_probe hands the parsers NUL-terminated text */
    char json[4096], small[64], missing[512], ver[128];
    mon_smi_parse_gpu_list(s, json, sizeof json);
    check_json(json, false);
    mon_smi_parse_gpu_list(s, small, sizeof small); /* too small: still valid */
    check_json(small, false);
    int have = mon_smi_parse_gpm(s, missing, sizeof missing);
    if (have < -1)
        abort();
    check_json(missing, true);
    if (mon_smi_driver_version(s, ver, sizeof ver) && (!*ver || strlen(ver) >= sizeof ver))
        abort();
    const char *name;
    size_t len;
    if (mon_smi_rejected_field(s, &name, &len) && (name < s || name + len > s + size))
        abort();
    char health[1024];
    int nh = mon_smi_health_fields(s, health, sizeof health);
    if (nh < 0 || nh > HW_HEALTH_COUNT || (nh == 0) != (health[0] == '\0'))
        abort();
    for (const char *f = health; *f;) { /* only the table's names, each once */
        size_t fl = strcspn(f, ",");
        bool known = fl == strlen(HW_HEALTH_REASONS_OLD) && !memcmp(f, HW_HEALTH_REASONS_OLD, fl);
        for (int k = 0; k < HW_HEALTH_COUNT && !known; k++)
            known = fl == strlen(hw_health_fields[k]) && !memcmp(f, hw_health_fields[k], fl);
        if (!known)
            abort();
        f += fl + (f[fl] == ',');
    }
    char list[600];
    snprintf(list, sizeof list, "%s", s);
    size_t before = strlen(list);
    if (mon_smi_drop_field(list, "index", 5) && strlen(list) >= before)
        abort();
    free(s);
    return 0;
}
