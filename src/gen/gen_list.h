/* src/gen/gen_list.h: problem generators, PDS_PROBLEM(name, create hook, number of dims, one-line description). */
PDS_PROBLEM("poisson7", pds_problem_create_poisson7, 3, "3D 7-point Laplacian, Dirichlet, manufactured solution")
PDS_PROBLEM("fem2d", pds_problem_create_fem2d, 1, "paper 004: P1 Poisson on the unit square, dims[0] = nodes")
PDS_PROBLEM("channel", pds_problem_create_channel, 3, "issue 10: Navier-Stokes channel step, stencil7, n = 6")
PDS_PROBLEM("patches", pds_problem_create_patches, 3, "issue 12: cell-centred Poisson on patches of up to 32^3 (paper 002)")
PDS_PROBLEM("sem", pds_problem_create_sem, 3, "issue 13: spectral-element Poisson, order 7, dims = elements (paper 003)")
