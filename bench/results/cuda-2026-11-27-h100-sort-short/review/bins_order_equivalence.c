/* Review check (session 26): the simplified prepare_bins order (one sort of
 * all rows under sort_short_items) against the two-sort code the GPU ran,
 * on 2000 random row-length sets.  Built on the CPU against the library:
 *   gcc -O1 bins_order_equivalence.c lib/.libs/libloom.a -lm -lpthread -fopenmp
 * Output: "same orders on 2000 random matrices, both modes". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
int64_t *loom__longest_first_order(const int64_t *len, int64_t count);
static bool order_by_length(int64_t *items, int64_t *len, int64_t count)
{
    int64_t *rank = loom__longest_first_order(len, count);
    if (!rank) return false;
    for (int64_t i = 0; i < count; i++) len[i] = items[rank[i]];
    memcpy(items, len, (size_t)count * sizeof *items);
    free(rank);
    return true;
}
static void old_order(const int64_t *ro, int64_t m, int64_t thr, bool sort_short, int64_t *order)
{
    int64_t n_long = 0;
    for (int64_t r = 0; r < m; r++) n_long += ro[r + 1] - ro[r] > thr;
    int64_t *long_len = malloc((size_t)(n_long > 0 ? n_long : 1) * 8);
    int64_t nl = 0, ns = n_long;
    for (int64_t r = 0; r < m; r++) {
        int64_t len = ro[r + 1] - ro[r];
        if (len > thr) { long_len[nl] = len; order[nl++] = r; } else order[ns++] = r;
    }
    int64_t *rank = loom__longest_first_order(long_len, n_long);
    if (sort_short) {
        int64_t *sl = malloc((size_t)(m - n_long + 1) * 8);
        for (int64_t i = n_long; i < m; i++) sl[i - n_long] = ro[order[i] + 1] - ro[order[i]];
        order_by_length(order + n_long, sl, m - n_long);
        free(sl);
    }
    for (int64_t i = 0; i < n_long; i++) long_len[i] = order[rank[i]];
    memcpy(order, long_len, (size_t)n_long * 8);
    free(long_len); free(rank);
}
static void new_order(const int64_t *ro, int64_t m, int64_t thr, bool sort_short, int64_t *order)
{
    int64_t n_long = 0;
    for (int64_t r = 0; r < m; r++) n_long += ro[r + 1] - ro[r] > thr;
    int64_t *len = malloc((size_t)m * 8);
    for (int64_t r = 0, nl = 0, ns = n_long; r < m; r++) {
        const int64_t i = ro[r + 1] - ro[r] > thr ? nl++ : ns++;
        order[i] = r; len[i] = ro[r + 1] - ro[r];
    }
    order_by_length(order, len, sort_short ? m : n_long);
    free(len);
}
int main(void)
{
    srand(7);
    for (int t = 0; t < 2000; t++) {
        int64_t m = 1 + rand() % 3000, thr = (rand() % 2) ? 16 : 128;
        int64_t *ro = malloc((m + 1) * 8), *a = malloc(m * 8), *b = malloc(m * 8);
        ro[0] = 0;
        for (int64_t r = 0; r < m; r++) { int64_t l = rand() % 4 == 0 ? rand() % 2000 : rand() % 40; if (t % 7 == 0) l = 5; ro[r + 1] = ro[r] + l; }
        for (int s = 0; s < 2; s++) {
            old_order(ro, m, thr, s, a); new_order(ro, m, thr, s, b);
            if (memcmp(a, b, m * 8)) { printf("DIFF t=%d sort=%d\n", t, s); return 1; }
        }
        free(ro); free(a); free(b);
    }
    printf("same orders on 2000 random matrices, both modes\n");
    return 0;
}
