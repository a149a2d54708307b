/* apps/pdesolve/pdesolve_app.h: what the files of the pdesolve driver share (internal to apps/pdesolve/): exit
 * statuses, the error messages and the TRY/OPT macros, the shared flag groups (common.c), the fem2d, channel and
 * patches problem families (problem_fem2d.c, problem_channel.c, problem_patches.c: also the flags of relax and gmg,
 * the preconditioners of patch sets), the solving shared by solve and demo (solve_common.c),
 * and one function per command (cmd_NAME.c), which main.c's command table lists. A new command is a cmd_NAME.c,
 * its line in that table, its declaration below and its file in apps/CMakeLists.txt. */
#ifndef PDESOLVE_APP_H
#define PDESOLVE_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "pdesolve.h"
#include "sys/options.h"

enum { EXIT_DONE = 0, EXIT_ERROR = 1, EXIT_NOT_CONVERGED = 2 };

/* ---- messages (common.c) ----------------------------------------------------------------------------- */

int fail(const char *fmt, ...) PDS_PRINTF(1, 2);
int fail_lib(pds_ctx ctx, int ierr, const char *what);

/* In functions with a `pds_ctx ctx`, an `int rc` and a `done:` label. */
#define TRY(what, ...)                          \
  do {                                          \
    int try_ierr_ = (__VA_ARGS__);              \
    if (try_ierr_) {                            \
      rc = fail_lib(ctx, try_ierr_, what);      \
      goto done;                                \
    }                                           \
  } while (0)
/* Options getters: the message names the flag. */
#define OPT(o, ...)                                                                        \
  do {                                                                                     \
    if ((__VA_ARGS__)) {                                                                   \
      const char *m_ = pds_options_get_error(o);                                           \
      return fail("%s (see 'pdesolve %s -help')", m_[0] ? m_ : "out of memory", cmdname);  \
    }                                                                                      \
  } while (0)

/* ---- shared flag groups (common.c) ------------------------------------------------------------------- */

extern const char *const format_names[3];
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

int read_backend(pds_options o, const char *cmdname, char *out, size_t len);
int make_ctx(const char *backend, pds_ctx *ctx);
/* app_mpi.c: MPI around the driver (a build with MPI; else one rank): init and finalize in main, the number of ranks,
   and the context of a command (every rank's, pds_ctx_create_mpi, under mpirun with more than one rank) */
void app_mpi_init(int *argc, char ***argv);
void app_mpi_finalize(void);
int  app_ranks(void);
int  app_make_ctx(const char *backend, pds_ctx *ctx);
int read_problem(pds_options o, const char *cmdname, const char **problem, int *dims, int *ndims, bool req);
int read_vec_checked(pds_ctx ctx, const char *flag, const char *path, pds_int n, const char *what, pds_vec *v);
int read_mat(pds_ctx ctx, const char *path, pds_mat *A);
int read_grid(pds_options o, const char *cmdname, int *grid);
int to_format(pds_ctx ctx, const char *format, int bs, const int *grid, pds_mat *A);

/* ---- fem2d: P1 finite elements on a generated or Gmsh mesh (problem_fem2d.c) ------------------------- */

typedef struct {
  const char *domain, *mesh, *fem, *dirichlet, *vtk;
  int         nodes, seed;
  bool        rcm;
} fem_opts;

/* What a fem2d run knows besides the solve: mesh, assembly, errors (for the result line, -json and -vtk). */
typedef struct {
  bool     on;
  char     source[200];
  const fem_opts *fo;
  pds_int  nnodes, ntri, nbedge, ndirichlet;
  double   min_angle, max_aspect, t_create, t_assemble, t_upload;
  bool     have_err;
  double   err_l2, err_pct; /* err_pct < 0: not reported (u may vanish) */
} fem_report;

int read_fem_flags(pds_options o, const char *cmdname, fem_opts *fo);
int check_fem_flags(pds_options o, const fem_opts *fo, const char **problem, int ndims, bool *on);
int fem_build(pds_ctx ctx, const fem_opts *fo, pds_mesh *mesh, pds_fem2d *fem, pds_mat *A, pds_vec *b, pds_vec *u,
              fem_report *fr);
int fem_finish(pds_ctx ctx, const fem_opts *fo, pds_mesh mesh, pds_fem2d fem, pds_vec x, pds_vec u, fem_report *fr);

/* ---- channel: Navier-Stokes channel step as stencil7 (problem_channel.c) ------------------------------- */

typedef struct {
  pds_channel_opts o;      /* -cfl, -re, -stretch, -beta; I, J, K from -n, n from -bs */
  int              blocks; /* -blocks NB: NB grids of the -n size */
  const char      *grids;  /* -grids LIST (NULL: -n) */
  int              decomp[3], ndecomp; /* -decomp BX [BY BZ]: one channel cut into touching blocks (ndecomp 0: no) */
} channel_flags;

int read_channel_flags(pds_options o, const char *cmdname, channel_flags *cf);
int check_channel_flags(pds_options o, const char *problem, const int *dims, int ndims, int bs, channel_flags *cf,
                        bool *on);
int channel_build(pds_ctx ctx, const channel_flags *cf, pds_problem *p);
/* under mpirun: the channel of -n cut by -decomp (default: one slab along the flow per rank), blocks over the ranks */
int channel_build_dist(pds_ctx ctx, const channel_flags *cf, pds_problem *p);

/* ---- sem: spectral-element Poisson on hexahedra (problem_sem.c) ------------------------------------------- */

typedef struct {
  int    elements[3], nel; /* -elements EX [EY EZ] (or -n); nel: how many were given */
  int    order;            /* -order N */
  double deform;           /* -deform D */
  const char *mesh;        /* -mesh F.msh (read by the fem2d flags; solve passes it on): hexahedra instead of the box */
  bool   subdivide;        /* -subdivide: the mesh's cells cut into hexahedra first */
  bool   el_set, order_set, deform_set;
} sem_flags;

int read_sem_flags(pds_options o, const char *cmdname, sem_flags *sf);
int check_sem_flags(pds_options o, const char *problem, const int *dims, int ndims, const char *mesh, sem_flags *sf,
                    bool *on);
/* the flags' problem, A the matrix-free sem operator; on more than one rank (collective: every rank builds the
   space) A is mpisem, its elements cut by partition (-partition: NULL or "contiguous", "metis") */
int sem_build(pds_ctx ctx, const sem_flags *sf, const char *partition, pds_problem *p);
/* -vtk: the space's points with fields solution, exact, error (u may be NULL: the solution alone) */
int sem_write_vtk(pds_ctx ctx, const sem_flags *sf, const char *path, pds_vec x, pds_vec u);

/* ---- patches: cell-centred Poisson on a patch set, and its preconditioners relax and gmg (problem_patches.c) - */

#define PATCH_MAX_SIZES 64 /* sizes in a -patch list */

typedef struct {
  const char *list;                     /* -patch LIST as given (NULL: not given, the default 32) */
  int         nsizes;                   /* the sizes of the list (check_patches_flags parses it) */
  pds_int     sizes[PATCH_MAX_SIZES];
  pds_int     n[3];                     /* the box, from -n (missing sizes repeat the last) */
  int         count;                    /* patches (after patches_build) */
} patches_flags;

int read_patches_flags(pds_options o, const char *cmdname, patches_flags *pf);
int check_patches_flags(pds_options o, const char *problem, const int *dims, int ndims, patches_flags *pf, bool *on);
int patches_build(pds_ctx ctx, patches_flags *pf, pds_problem *p);
/* the same over the ranks (collective; pds_problem_patches_dist: whole patches a rank) */
int patches_build_dist(pds_ctx ctx, patches_flags *pf, pds_problem *p);
/* the operator of solve and apply: the patch set of pf (when not NULL), else the generated problem (when problem is
   set), else the file Apath; p holds a generated problem, *A a reference of its own, source says what it is
   (common.c) */
int load_operator(pds_ctx ctx, patches_flags *pf, const char *problem, const int *dims, int ndims, const char *Apath,
                  pds_problem *p, pds_mat *A, char *source, size_t len);

/* -relax_* and -gmg_* (their defaults those of the library, passed explicitly, so what the report says is what ran) */
typedef struct {
  const char *relax_type, *relax_variant;
  int         relax_block[3], relax_sweeps;
  double      relax_omega;                   /* 0: the type's default */
  bool        relax_symmetric;               /* multicolor only */
  const char *gmg_cycle, *gmg_smoother, *gmg_prolong, *gmg_coarse;
  int         gmg_levels, gmg_block[3], gmg_pre, gmg_post, gmg_coarse_max;
  double      gmg_omega;                     /* 0: the smoother type's default */
} relax_gmg_flags;

void   relax_gmg_defaults(relax_gmg_flags *rg);
int    read_relax_gmg_flags(pds_options o, const char *cmdname, relax_gmg_flags *rg);
int    check_relax_gmg_flags(pds_options o, const char *pc, const relax_gmg_flags *rg);
int    set_relax_gmg(pds_ctx ctx, pds_precond pc, const char *pcname, const relax_gmg_flags *rg);
double relax_omega_of(const char *type, double omega); /* omega 0: the type's default (jacobi 0.8, else 1) */

/* ---- solving: shared by solve and demo (solve_common.c) ---------------------------------------------- */

typedef struct {
  const char *solver, *pc;
  int         bs; /* > 0: the pbjacobi block size */
  double      rtol, atol, inftol, omega;
  int         maxit, restart;
  bool        monitor, view, history;
  bool        host_loop; /* -device_loop 0: the host stays in the loop */
  const char *orthog;    /* gmres/fgmres: cgs2 or cgs */
  const char *precision; /* double, single or mixed */
  const char *bilu0_variant, *bilu0_factors; /* -pc bilu0: NULL (not given), a variant name; double or float */
  double      ilu0_shift;                    /* -pc ilu0: factor A + shift I */
  const char *ilu0_ordering;                 /* -pc ilu0: NULL (not given), natural, rcm, multicolor */
  bool        ilu0_shift_set;
  const char *ilu0_variant;                  /* -pc ilu0: NULL (not given) or a variant name */
  int         ilu0_sweeps, ilu0_fsweeps;     /* -pc ilu0 approx-*: Jacobi and Chow-Patel sweeps */
  bool        ilu0_sweeps_set, ilu0_fsweeps_set;
  const relax_gmg_flags *rg;                 /* -pc relax, gmg: their flags (NULL: the library's defaults) */
  const char *semjacobi_variant;             /* -pc semjacobi: NULL (not given) or a kernel name */
  const char *sub_pc;                        /* -pc bjacobi, asm: the local preconditioner (-sub_pc) */
  const char *partition;                     /* under mpirun with -A: contiguous or metis (-partition) */
  const char *halo;                          /* under mpirun: the halo's transport, mpi or nccl (-halo) */
} solve_settings;

typedef struct {
  pds_solver_result res;
  pds_int           n;
  pds_size          nnz;
  int               bs;
  double            t_setup, t_solve;
  double            rnorm_true; /* ||b - A x||_2, computed after the solve */
  bool              have_x, have_u;
  double            err_inf, err_rel2, disc_err;
} solve_info;

/* -pc ilu0's flags (-pc_ilu0_shift, _ordering, _variant, _sweeps, _factor_sweeps) into st; EXIT_ERROR on a bad one */
int    read_ilu0_flags(pds_options o, const char *cmdname, solve_settings *st);
int    make_solver(pds_ctx ctx, const solve_settings *st, pds_solver *s, pds_precond *pc);
int    run_solver(pds_ctx ctx, pds_solver s, pds_mat A, pds_vec b, pds_vec x, pds_vec x_exact, pds_vec u_exact,
                  const solve_settings *st, solve_info *info);
double ratio(double a, double b);
void   print_solution(const solve_info *in, const char *extra);
void   print_result(const solve_settings *st, const char *backend, const solve_info *in, const char *mid,
                    const char *tail);
int    print_history(pds_solver s);
/* solve under mpirun with more than one rank (solve_dist.c): -A file (read by rank 0, scattered by rows), -problem
   poisson7 (each rank its rows), the channel of ch (not NULL: -problem channel, blocks over the ranks) or a problem
   made before (pre not NULL on every rank): distributed already (pre_dist: patches, sem; taken over, *pre left
   empty), or built whole by rank 0 (fem2d; its A, b and u_exact rank 0's, A NULL there when the build failed); -b and -x0
   files; the result line and the JSON report with the ranks and the communication time */
int    solve_dist(pds_ctx ctx, const solve_settings *st, const char *Apath, const char *problem, const int *dims,
                  int ndims, const channel_flags *ch, pds_problem *pre, int pre_dist, const char *format,
                  const char *bpath, const char *x0path, const char *json, const char *out);
/* v of rank 0 to every rank (under mpirun; else nothing) */
void   app_bcast_int(int *v);
/* app_mpi.c: every rank's v into all[0 .. ranks) (rank 0's copy only is needed) */
void   app_gather(double v, double *all);

/* ---- the commands (cmd_NAME.c; main.c's command table lists them) ------------------------------------ */

int cmd_solve(pds_options o);
int cmd_apply(pds_options o);
int cmd_gen(pds_options o);
int cmd_demo(pds_options o);
int cmd_fv(pds_options o);
/* pdesolve fv's sphere in a box (its -radius, -box and wall tag defaults) and its CFL number with -implicit; the demo's
   fv case takes the same */
#define FV_RADIUS       0.5
#define FV_BOX          5.0
#define FV_WALL_TAG     1
#define FV_IMPLICIT_CFL 50.0

#endif
