/* AMD GPUs' energy counters and market names through AMD SMI's library (amdsmi.h). */
#include "amdsmi.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* From AMD SMI's public header: the status code used, the init flag, the handles (opaque
 * pointers) and the entry points' signatures. */
enum { AMDSMI_STATUS_SUCCESS = 0 };
#define AMDSMI_INIT_AMD_GPUS (1ULL << 1)
typedef int smi_init_fn(uint64_t flags);
typedef int smi_sockets_fn(uint32_t *count, void **sockets);
typedef int smi_processors_fn(void *socket, uint32_t *count, void **handles);
typedef int smi_bdf_fn(void *h, uint64_t *bdfid);
typedef int smi_energy_fn(void *h, uint64_t *acc, float *res, uint64_t *ns);
typedef int smi_asic_fn(void *h, void *info);
typedef int smi_errstr_fn(int status, const char **text);

/* amdsmi_asic_info_t begins with its market name in every release (64 then 256 bytes); the
 * rest has grown. The call gets more room than any release fills. */
#define ASIC_INFO_ROOM 4096
#define MARKET_NAME_MAX 256

void mon_amdsmi_bdf(unsigned long long id, char *buf, size_t cap)
{
    snprintf(buf, cap, "%04llx:%02llx:%02llx.%llx", (id >> 32) & 0xffffffffULL,
             (id >> 8) & 0xffULL, (id >> 3) & 0x1fULL, id & 0x7ULL);
}

static const char *status_words(smi_errstr_fn *errstr, int rc)
{
    const char *s = NULL;
    return errstr && errstr(rc, &s) == AMDSMI_STATUS_SUCCESS && s && *s ? s : "error";
}

/* The market name in info, when it is a printable string within its room. */
static bool market_name(const unsigned char *info, char *out, size_t cap)
{
    size_t n = 0;
    while (n < MARKET_NAME_MAX && info[n] >= 0x20 && info[n] != 0x7f)
        n++;
    if (!n || n == MARKET_NAME_MAX || info[n] != '\0')
        return false;
    snprintf(out, cap, "%.*s", (int)n, (const char *)info);
    return true;
}

int mon_amdsmi_open(struct mon_amdsmi *m, struct mon_amd *a)
{
    memset(m, 0, sizeof *m);
    const char *path = getenv(MON_AMDSMI_LIBRARY_ENV);
    if (!path || !*path)
        path = MON_AMDSMI_LIBRARY;
    m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!m->lib) {
        snprintf(m->why, sizeof m->why, "no AMD SMI library (%s)", path);
        return 0;
    }
    smi_init_fn *init = (smi_init_fn *)dlsym(m->lib, "amdsmi_init");
    smi_sockets_fn *sockets = (smi_sockets_fn *)dlsym(m->lib, "amdsmi_get_socket_handles");
    smi_processors_fn *procs = (smi_processors_fn *)dlsym(m->lib, "amdsmi_get_processor_handles");
    smi_bdf_fn *bdf = (smi_bdf_fn *)dlsym(m->lib, "amdsmi_get_gpu_bdf_id");
    smi_asic_fn *asic = (smi_asic_fn *)dlsym(m->lib, "amdsmi_get_gpu_asic_info"); /* optional */
    smi_errstr_fn *errstr = (smi_errstr_fn *)dlsym(m->lib, "amdsmi_status_code_to_string");
    m->shutdown = (int (*)(void))dlsym(m->lib, "amdsmi_shut_down");
    m->energy = (smi_energy_fn *)dlsym(m->lib, "amdsmi_get_energy_count");
    if (!init || !sockets || !procs || !bdf || !m->shutdown || !m->energy) {
        snprintf(m->why, sizeof m->why, "%s lacks an AMD SMI entry point", path);
        dlclose(m->lib);
        m->lib = NULL;
        return 0;
    }
    int rc = init(AMDSMI_INIT_AMD_GPUS);
    if (rc != AMDSMI_STATUS_SUCCESS) {
        snprintf(m->why, sizeof m->why, "AMD SMI init failed: %s (%d)", status_words(errstr, rc),
                 rc);
        dlclose(m->lib);
        m->lib = NULL;
        return 0;
    }
    /* every GPU the library has, with its address */
    void *sock[MON_AMD_MAX], *hs[MON_AMD_MAX];
    char addr[MON_AMD_MAX][24];
    int nh = 0;
    uint32_t ns = MON_AMD_MAX;
    if (sockets(&ns, sock) != AMDSMI_STATUS_SUCCESS)
        ns = 0;
    for (uint32_t s = 0; s < ns && s < MON_AMD_MAX && nh < MON_AMD_MAX; s++) {
        void *ph[MON_AMD_MAX];
        uint32_t np = MON_AMD_MAX;
        if (procs(sock[s], &np, ph) != AMDSMI_STATUS_SUCCESS)
            continue;
        for (uint32_t k = 0; k < np && k < MON_AMD_MAX && nh < MON_AMD_MAX; k++) {
            uint64_t id;
            if (bdf(ph[k], &id) != AMDSMI_STATUS_SUCCESS)
                continue;
            hs[nh] = ph[k];
            mon_amdsmi_bdf(id, addr[nh], sizeof addr[nh]);
            nh++;
        }
    }
    int unmatched = 0, shared = 0, unsupported = 0;
    for (int i = 0; i < a->n; i++) {
        struct mon_amd_card *c = &a->c[i];
        int hit = -1, hits = 0;
        for (int k = 0; k < nh && c->pci[0]; k++)
            if (!strcasecmp(addr[k], c->pci))
                hit = k, hits++;
        for (int j = 0; j < a->n && hits == 1; j++) /* another card at that address */
            if (j != i && !strcasecmp(a->c[j].pci, c->pci))
                hits++;
        if (hits != 1) {
            hits ? shared++ : unmatched++;
            continue;
        }
        if (asic && !c->named) {
            unsigned char *info = calloc(1, ASIC_INFO_ROOM);
            if (info && asic(hs[hit], info) == AMDSMI_STATUS_SUCCESS)
                market_name(info, c->name, sizeof c->name);
            free(info);
        }
        uint64_t acc, ts;
        float res;
        if (m->energy(hs[hit], &acc, &res, &ts) != AMDSMI_STATUS_SUCCESS || !(res > 0)) {
            unsupported++;
            continue;
        }
        m->index[m->n] = i;
        m->h[m->n++] = hs[hit];
    }
    int off = 0;
    if (unmatched)
        off += snprintf(m->why + off, sizeof m->why - (size_t)off, "%d card%s not found by AMD SMI",
                        unmatched, unmatched == 1 ? "" : "s");
    if (shared && off < (int)sizeof m->why)
        off += snprintf(m->why + off, sizeof m->why - (size_t)off,
                        "%s%d card%s sharing a PCI address (partitions: one socket's counter)",
                        off ? "; " : "", shared, shared == 1 ? "" : "s");
    if (unsupported && off < (int)sizeof m->why)
        snprintf(m->why + off, sizeof m->why - (size_t)off, "%s%d card%s without an energy counter",
                 off ? "; " : "", unsupported, unsupported == 1 ? "" : "s");
    if (!m->n)
        mon_amdsmi_close(m);
    return m->n;
}

bool mon_amdsmi_read(const struct mon_amdsmi *m, int i, unsigned long long *mj)
{
    uint64_t acc, ns;
    float res;
    if (!m->lib || i < 0 || i >= m->n || m->energy(m->h[i], &acc, &res, &ns) != 0 || !(res > 0))
        return false;
    *mj = (unsigned long long)((double)acc * res / 1000.0); /* res: microjoules a count */
    return true;
}

void mon_amdsmi_close(struct mon_amdsmi *m)
{
    if (m->lib) {
        m->shutdown();
        dlclose(m->lib);
    }
    m->lib = NULL;
    m->n = 0;
}
