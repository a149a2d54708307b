/* src/gen/gen_list.h: problem generators, PDS_PROBLEM(name, create hook, number of dims, one-line description). */
PDS_PROBLEM("poisson7", pds_problem_create_poisson7, 3, "3D 7-point Laplacian, Dirichlet, manufactured solution")
