/*
 * omp_team.h - a persistent team of worker threads for short parallel
 * regions.  An OpenMP parallel region of two threads costs libgomp about
 * 2.6 us on the 2-core build VM (futex wakes and barriers), as much as the
 * SpMV of a 10k non-zero matrix; this team hands a job to workers that
 * spin on a generation counter for a while after each job (0.5 us per
 * region there) and sleep when idle longer.  With LOOM_OMP_TEAM=1 the
 * OpenMP backend uses it for its row-balanced products, falling back to an
 * OpenMP region when the team is busy with another caller's job.  It is
 * off by default: its spinning workers and an OpenMP runtime's spinning
 * threads take cores from each other (omp_team.c, team_allowed).
 */
#ifndef LOOM_OMP_TEAM_H
#define LOOM_OMP_TEAM_H

/* Thread tid of nth (0 <= tid < nth) does its share of the job. */
typedef void (*omp_team_fn)(void *arg, int tid, int nth);

/* Run fn(arg, tid, threads) for tid = 0 .. threads-1, tid 0 on the calling
 * thread, and return 1 once every share is done; or return 0 without
 * running anything when the team cannot take the job now (another caller
 * holds it, threads out of range, workers could not be started): the
 * caller then runs the job another way. */
int omp_team_run(int threads, omp_team_fn fn, void *arg);

#endif
