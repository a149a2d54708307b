/* src/solver/solver_list.h: registered Krylov methods, PDS_SOLVER(name, create hook). */
PDS_SOLVER("cg", pds_solver_create_cg)
PDS_SOLVER("bicgstab", pds_solver_create_bicgstab)
PDS_SOLVER("gmres", pds_solver_create_gmres)
PDS_SOLVER("fgmres", pds_solver_create_fgmres)
PDS_SOLVER("richardson", pds_solver_create_richardson)
