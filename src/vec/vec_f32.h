/* src/vec/vec_f32.h: the single-precision side of the vector operations (vec_f32.c), called by vec.c once it has
 * checked the arguments and found single-precision vectors. Not for other callers: they go through pds_vec_*. */
#ifndef PDS_VEC_F32_H
#define PDS_VEC_F32_H

#include "vec_impl.h"

PDS_INTERN int pds_vec_f32_set(pds_vec v, double a);
PDS_INTERN int pds_vec_f32_copy(pds_vec x, pds_vec y); /* either may be single: converts */
PDS_INTERN int pds_vec_f32_axpby(pds_vec y, double a, pds_vec x, double b);
PDS_INTERN int pds_vec_f32_axpbypcz(pds_vec z, double a, pds_vec x, double b, pds_vec y, double c);
PDS_INTERN int pds_vec_f32_pdiv(pds_vec w, pds_vec x, pds_vec d); /* w = x ./ d, d double */
PDS_INTERN int pds_vec_f32_dot2(pds_vec x, pds_vec y, pds_vec z, double *d); /* z may be NULL */
PDS_INTERN int pds_vec_f32_dot_into(pds_vec x, pds_vec y, pds_vec s, int i);
PDS_INTERN int pds_vec_f32_cg_r(pds_vec r, pds_vec q, pds_vec S, int step);
PDS_INTERN int pds_vec_f32_cg_xp(pds_vec x, pds_vec p, pds_vec z, pds_vec S);
PDS_INTERN int pds_vec_f32_bicgstab_s(pds_vec w, pds_vec r, pds_vec v, pds_vec S);
PDS_INTERN int pds_vec_f32_bicgstab_r(pds_vec r, pds_vec w, pds_vec t, pds_vec rhat, pds_vec S, int step);
PDS_INTERN int pds_vec_f32_bicgstab_xp(pds_vec x, pds_vec p, pds_vec ph, pds_vec sh, pds_vec r, pds_vec v, pds_vec S);

#endif
