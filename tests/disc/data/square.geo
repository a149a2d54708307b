// tests/disc/data/square.geo: the unit square for the fem2d convergence test, meshed at test time with
// `gmsh -2 -clscale s -format msh22`. Boundary tags as pds_mesh_generate's: 1 bottom, 2 right, 3 top, 4 left.
lc = 0.04;
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {1, 1, 0, lc};
Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve(1) = {1};
Physical Curve(2) = {2};
Physical Curve(3) = {3};
Physical Curve(4) = {4};
Physical Surface(10) = {1};
