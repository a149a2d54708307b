/* src/precond/precond_list.h: registered preconditioners, PDS_PRECOND(name, create hook). */
PDS_PRECOND("none", pds_precond_create_none)
PDS_PRECOND("jacobi", pds_precond_create_jacobi)
PDS_PRECOND("pbjacobi", pds_precond_create_pbjacobi)
PDS_PRECOND("bilu0", pds_precond_create_bilu0)
PDS_PRECOND("ilu0", pds_precond_create_ilu0)
PDS_PRECOND("relax", pds_precond_create_relax)
PDS_PRECOND("gmg", pds_precond_create_gmg)
PDS_PRECOND("shell", pds_precond_create_shell)
