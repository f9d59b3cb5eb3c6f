// cylinder.geo - flow around a cylinder in a channel, the three-dimensional
// case of the DFG benchmark, a second real CFD mesh beside the Ahmed body
// (cases/ahmed.geo) for the SpMV studies: its matrix is the P1 Laplacian of
// the tetrahedra, as for every mesh flowbench reads (docs/matrices.md).
// flowbench's solver has no case for it; the mesh is a matrix source.
//
// Geometry: M. Schaefer and S. Turek, "Benchmark computations of laminar
// flow around a cylinder", in Flow Simulation with High-Performance
// Computers II, Notes on Numerical Fluid Mechanics 52 (1996), the 3D
// cases with a circular cylinder (3D-1Z, 3D-2Z, 3D-3Z). Metres; x
// downstream, y across the channel, z along the cylinder's axis:
//   channel 2.5 long, 0.41 x 0.41 in cross-section;
//   cylinder of diameter 0.1, its axis along z through (0.5, 0.2), so
//   0.005 off the channel's centre line in y (0.205): the benchmark's
//   asymmetry, which gives the flow a lift and lets the Re = 100 cases
//   shed vortices without a perturbation; it spans the channel from wall
//   to wall in z.
//
// Physical groups: surfaces inlet, outlet, walls, cylinder; volume fluid.
//
// Mesh: sizes from a distance field (fine on the cylinder, a refined wake
// box behind it), all multiplied by the parameter `sf`. With gmsh 4.8.4:
// sf = 4: 5,254 nodes, 24,370 tetrahedra (under a second; the tests');
// sf = 0.75: 554,536 nodes, 3,264,010 tetrahedra (183 s; the SpMV study's).
// Regenerate:
//   scripts/mesh-case.sh cases/cylinder.geo OUT.msh [SIZE_FACTOR]
// or directly: gmsh -3 cases/cylinder.geo -setnumber sf 1 -format msh41 -o OUT.msh
SetFactory("OpenCASCADE");

DefineConstant[ sf = {1, Min 0.25, Max 10, Name "Parameters/mesh size factor"} ];

L = 2.5; H = 0.41; D = 0.1; xc = 0.5; yc = 0.2;

Box(1) = {0, 0, 0, L, H, H};
Cylinder(2) = {xc, yc, 0, 0, 0, H, D / 2};
fluid[] = BooleanDifference{ Volume{1}; Delete; }{ Volume{2}; Delete; };

// OpenCASCADE's bounding box of a curved surface can stand a little proud
// of it (1.9e-4 on the cylinder with gmsh 4.8.4): the boxes searched are
// 1e-3 wider, far less than any distance between the surfaces.
eps = 1e-3;
s_inlet[] = Surface In BoundingBox{-eps, -eps, -eps, eps, H + eps, H + eps};
s_outlet[] = Surface In BoundingBox{L - eps, -eps, -eps, L + eps, H + eps, H + eps};
s_cyl[] = Surface In BoundingBox{xc - D / 2 - eps, yc - D / 2 - eps, -eps, xc + D / 2 + eps, yc + D / 2 + eps, H + eps};
s_all[] = Boundary{ Volume{fluid[]}; };
s_walls[] = s_all[];
s_walls[] -= {s_inlet[], s_outlet[], s_cyl[]};
Physical Surface("inlet") = {s_inlet[]};
Physical Surface("outlet") = {s_outlet[]};
Physical Surface("walls") = {s_walls[]};
Physical Surface("cylinder") = {s_cyl[]};
Physical Volume("fluid") = {fluid[]};

// ---- mesh sizes ----------------------------------------------------------
h_cyl = 0.004 * sf;  // on the cylinder
h_wake = 0.009 * sf; // in the wake box
h_far = 0.016 * sf;  // elsewhere in the channel

Field[1] = Distance;
Field[1].SurfacesList = {s_cyl[]};
Field[1].NumPointsPerCurve = 100;
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = h_cyl;
Field[2].SizeMax = h_far;
Field[2].DistMin = 0.005;
Field[2].DistMax = 0.15;

Field[3] = Box; // the near wake, where the vortices are shed
Field[3].VIn = h_wake;
Field[3].VOut = h_far;
Field[3].XMin = xc; Field[3].XMax = xc + 1.0;
Field[3].YMin = yc - 0.12; Field[3].YMax = yc + 0.12;
Field[3].ZMin = 0; Field[3].ZMax = H;
Field[3].Thickness = 0.1;

Field[4] = Min;
Field[4].FieldsList = {2, 3};
Background Field = 4;

Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.MeshSizeMax = h_far;
Mesh.Algorithm = 6;   // Frontal-Delaunay surfaces
Mesh.Algorithm3D = 1; // Delaunay volume
Mesh.Optimize = 1;
Mesh.RandomSeed = 1;
