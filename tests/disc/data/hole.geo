// tests/disc/data/hole.geo: [0,2]x[0,1] minus the disc of radius 0.25 at (0.5,0.5) (pds_mesh_generate's "hole"),
// for the fem2d convergence test, meshed at test time with `gmsh -2 -clscale s -format msh22`. Boundary tags:
// 1 bottom, 2 right, 3 top, 4 left, 5 the circle.
lc = 0.05;
Point(1) = {0, 0, 0, lc};
Point(2) = {2, 0, 0, lc};
Point(3) = {2, 1, 0, lc};
Point(4) = {0, 1, 0, lc};
Point(5) = {0.5, 0.5, 0, lc};
Point(6) = {0.75, 0.5, 0, lc};
Point(7) = {0.5, 0.75, 0, lc};
Point(8) = {0.25, 0.5, 0, lc};
Point(9) = {0.5, 0.25, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Circle(5) = {6, 5, 7};
Circle(6) = {7, 5, 8};
Circle(7) = {8, 5, 9};
Circle(8) = {9, 5, 6};
Curve Loop(1) = {1, 2, 3, 4};
Curve Loop(2) = {5, 6, 7, 8};
Plane Surface(1) = {1, 2};
Physical Curve(1) = {1};
Physical Curve(2) = {2};
Physical Curve(3) = {3};
Physical Curve(4) = {4};
Physical Curve(5) = {5, 6, 7, 8};
Physical Surface(10) = {1};
