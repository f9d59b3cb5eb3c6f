// tiny_cube.geo - the unit cube meshed coarsely with tetrahedra, the source
// of tiny_cube_v22.msh, tiny_cube_v41.msh and tiny_cube.su2 (the reader tests
// check that the three files give the same mesh and the same matrices).
// Regenerate:
//   gmsh -3 tiny_cube.geo -format msh22 -o tiny_cube_v22.msh
//   gmsh -3 tiny_cube.geo -format msh41 -o tiny_cube_v41.msh
//   gmsh -3 tiny_cube.geo -format su2 -o tiny_cube.su2
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Mesh.MeshSizeMin = 0.5;
Mesh.MeshSizeMax = 0.5;
Mesh.Algorithm3D = 1;   // Delaunay
Mesh.RandomSeed = 1;
Physical Surface("wall") = {1, 2, 3, 4, 5, 6};
Physical Volume("fluid") = {1};
