// tests/mesh/data/box_hex.geo: an all-hexahedral mesh of the unit cube for the 3D Gmsh reader tests (t904): a
// transfinite recombined square extruded in 4 layers (4 x 4 x 4 hexahedra, 125 nodes); physical surfaces 1 (bottom,
// z = 0), 2 (top, z = 1), 3 (the four sides), physical volume 9.
Point(1) = {0, 0, 0, 1};
Point(2) = {1, 0, 0, 1};
Point(3) = {1, 1, 0, 1};
Point(4) = {0, 1, 0, 1};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve {1, 2, 3, 4} = 5;
Transfinite Surface {1};
Recombine Surface {1};
out[] = Extrude {0, 0, 1} { Surface{1}; Layers{4}; Recombine; };
Physical Surface("bottom", 1) = {1};
Physical Surface("top", 2) = {out[0]};
Physical Surface("sides", 3) = {out[2], out[3], out[4], out[5]};
Physical Volume("domain", 9) = {out[1]};
