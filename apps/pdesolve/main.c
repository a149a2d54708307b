/* apps/pdesolve/main.c: the pdesolve command-line driver: main, the command table (one line per command: name,
 * one-line summary, function; each command in its own cmd_NAME.c) and the help of all commands. Commands take
 * PETSc-style named flags (src/sys/options.c). `pdesolve -help` lists every command and flag with its default.
 *
 * Output contract (tests and scripts rely on it): -monitor prints "%5d KSP residual norm %.12e" per iteration;
 * solve always ends with one line "result: solver=... pc=... backend=... n=... nnz=... iterations=...
 * reason=... rnorm0=... rnorm=... rel=... t_setup=... t_solve=..." plus " err_inf=..." when the exact discrete
 * solution is known and " disc_err=..." when the PDE solution is known. Errors go to stderr as
 * "pdesolve: error: ...". Exit status: 0 converged (or done), 2 not converged, 1 error. */
#include <stdio.h>
#include <string.h>

#include "pdesolve_app.h"

static char help_flag[] = "-help";

typedef struct {
  const char *name, *summary;
  int (*run)(pds_options);
} command;

static const command commands[] = {
    {"solve", "solve A x = b from a Matrix Market file or a generated problem", cmd_solve},
    {"apply", "y = A x, A^T x or M^-1 x for a Matrix Market matrix", cmd_apply},
    {"gen", "write a generated problem as Matrix Market files", cmd_gen},
    {"demo", "solve a set of generated and real problems, one table row each", cmd_demo},
    {"fv", "finite-volume Euler flow on a 3D hybrid mesh (paper 001): explicit steps, residuals, VTK", cmd_fv},
};

static int help_all(void) {
  printf("pdesolve %s: sparse linear solvers for implicit CFD/FEM (backends:", pds_version());
  for (int i = 0; i < pds_backend_count(); i++)
    printf(" %s%s", pds_backend_name(i), pds_backend_compiled(i) ? "" : " (not compiled)");
  printf(")\n\nusage: pdesolve <command> [flags]     flags are PETSc-style: -name value\n\ncommands:\n");
  for (int i = 0; i < NELEM(commands); i++) printf("  %-8s %s\n", commands[i].name, commands[i].summary);
  printf("  %-8s this text; 'pdesolve <command> -help' for one command\n", "help");
  for (int i = 0; i < NELEM(commands); i++) {
    char       *h[1] = {help_flag};
    pds_options o;

    printf("\n");
    if (pds_options_create(1, h, &o)) return fail("out of memory");
    commands[i].run(o);
    pds_options_destroy(&o);
  }
  printf("\nexit status: 0 converged (or done), 2 not converged, 1 error (message on stderr: "
         "'pdesolve: error: ...')\n");
  return EXIT_DONE;
}

static int run_command(int argc, char **argv);

int main(int argc, char **argv) {
  int rc;

  app_mpi_init(&argc, &argv); /* under mpirun: every rank runs the command (app_mpi.c) */
  rc = run_command(argc, argv);
  app_mpi_finalize();
  return rc;
}

static int run_command(int argc, char **argv) {
  const char *cmd = argc > 1 ? argv[1] : NULL;
  pds_options o;
  int         rc;

  setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines appear as they are printed */
  if (!cmd) {
    fail("no command (try 'pdesolve -help'); commands: solve, apply, gen, demo, help");
    return EXIT_ERROR;
  }
  if (!strcmp(cmd, "-help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    if (!strcmp(cmd, "help") && argc > 2) {
      for (int i = 0; i < NELEM(commands); i++)
        if (!strcmp(argv[2], commands[i].name)) {
          char *h[1] = {help_flag};

          if (pds_options_create(1, h, &o)) return fail("out of memory");
          rc = commands[i].run(o);
          pds_options_destroy(&o);
          return rc;
        }
      return fail("help: unknown command '%s' (commands: solve, apply, gen, demo)", argv[2]);
    }
    return help_all();
  }
  if (!strcmp(cmd, "-version") || !strcmp(cmd, "--version")) {
    printf("pdesolve %s\n", pds_version());
    return EXIT_DONE;
  }
  for (int i = 0; i < NELEM(commands); i++) {
    if (strcmp(cmd, commands[i].name)) continue;
    if (pds_options_create(argc - 2, argv + 2, &o)) return fail("out of memory");
    rc = commands[i].run(o);
    pds_options_destroy(&o);
    return rc;
  }
  return fail("unknown command '%s' (commands: solve, apply, gen, demo, help; see 'pdesolve -help')", cmd);
}
