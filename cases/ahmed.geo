// ahmed.geo - the Ahmed body with the 25 degree rear slant in a wind-tunnel
// box, the external-flow case of the edge-based Navier-Stokes solver (the
// source paper's second case: about 80,000 nodes and 400,000 tetrahedra).
//
// Geometry: S. R. Ahmed, G. Ramm and G. Faltin, "Some salient features of
// the time-averaged ground vehicle wake", SAE Technical Paper 840300 (1984).
// Metres; x downstream, y spanwise, z up; the ground is z = 0, the nose is
// at x = 0 and the body is symmetric about y = 0.
//   length 1.044, width 0.389, height 0.288, ground clearance 0.050;
//   front: the side view and the top view both have R = 0.100 corners, and
//   the body is their intersection (the cross-section at a distance x < R
//   behind the nose is the 0.389 x 0.288 rectangle shrunk by
//   R - sqrt(R^2 - (R - x)^2) on every side; the four long edges stay sharp);
//   rear: a flat slant 0.222 long at 25 degrees to the roof, sharp edges,
//   ending in a vertical base.
//   The four cylindrical stilts (30 mm diameter) that held the model are
//   OMITTED: the body floats 0.050 above the ground.
// Tunnel: inlet 3 body lengths upstream of the nose (x = -3.132), outlet
// 5 lengths downstream of the base (x = 6.264), sides y = +-1.0, top z = 1.5:
// the 0.112 m^2 frontal area blocks 3.7% of the 3.0 m^2 cross-section.
// harness/solver/ahmed.h holds the same numbers for the solver; change both.
//
// Physical groups: surfaces inlet, outlet, ground, slip (top and both
// sides), body; volume fluid. (flowbench's mesh reader drops boundary
// triangles: the solver classifies boundary faces with fb_ahmed_face_tag.)
//
// Mesh: sizes from distance fields (fine on the body, finer still on the
// slant and base where the flow separates, a refined wake box behind the
// body), all multiplied by the parameter `sf`. Default sf = 1: 80,121
// nodes, 434,971 tetrahedra (gmsh 4.8.4, about 20 s); sf = 4: 2,214 nodes,
// 9,147 tetrahedra (under a second). Regenerate:
//   scripts/mesh-ahmed.sh cases/ahmed.msh            # default
//   scripts/mesh-ahmed.sh /tmp/ahmed-coarse.msh 4    # coarse, a few seconds
// or directly: gmsh -3 cases/ahmed.geo -setnumber sf 1 -format msh41 -o OUT.msh
SetFactory("OpenCASCADE");

DefineConstant[ sf = {1, Min 0.25, Max 10, Name "Parameters/mesh size factor"} ];

L = 1.044; W = 0.389; H = 0.288; R = 0.100; clearance = 0.050;
slant = 0.222; theta = 25 * Pi / 180;
zb = clearance; zt = clearance + H;
xs = L - slant * Cos(theta); // where the slant leaves the roof
x_in = -3 * L; x_out = L + 5 * L; half_span = 1.0; z_top = 1.5;
eps = 1e-6;

// The side view: the body's length and height, front corners rounded, the
// slant cut off; as a prism wider than the body.
Box(1) = {0, -W, zb, L, 2 * W, H};
front_y[] = Curve In BoundingBox{-eps, -2 * W, zt - eps, eps, 2 * W, zt + eps};
front_y[] += Curve In BoundingBox{-eps, -2 * W, zb - eps, eps, 2 * W, zb + eps};
side[] = Fillet{1}{front_y[]}{R};
// everything above the plane through the roof's rear edge tilted down by theta
Box(3) = {xs, -2 * W, zt, 1, 4 * W, 1};
Rotate{{0, 1, 0}, {xs, 0, zt}, theta} { Volume{3}; }
side[] = BooleanDifference{ Volume{side[]}; Delete; }{ Volume{3}; Delete; };

// The top view: length and width, front corners rounded; a prism taller
// than the body.
Box(4) = {0, -W / 2, zb - H, L, W, 3 * H};
front_z[] = Curve In BoundingBox{-eps, -W / 2 - eps, zb - H - eps, eps, -W / 2 + eps, zb + 2 * H + eps};
front_z[] += Curve In BoundingBox{-eps, W / 2 - eps, zb - H - eps, eps, W / 2 + eps, zb + 2 * H + eps};
top[] = Fillet{4}{front_z[]}{R};

body[] = BooleanIntersection{ Volume{side[]}; Delete; }{ Volume{top[]}; Delete; };

Box(10) = {x_in, -half_span, 0, x_out - x_in, 2 * half_span, z_top};
fluid[] = BooleanDifference{ Volume{10}; Delete; }{ Volume{body[]}; Delete; };

// Boundaries by position (surface numbers after booleans are not stable).
big = 100;
s_inlet[] = Surface In BoundingBox{x_in - eps, -big, -big, x_in + eps, big, big};
s_outlet[] = Surface In BoundingBox{x_out - eps, -big, -big, x_out + eps, big, big};
s_ground[] = Surface In BoundingBox{-big, -big, -eps, big, big, eps};
s_slip[] = Surface In BoundingBox{-big, -big, z_top - eps, big, big, z_top + eps};
s_slip[] += Surface In BoundingBox{-big, -half_span - eps, -big, big, -half_span + eps, big};
s_slip[] += Surface In BoundingBox{-big, half_span - eps, -big, big, half_span + eps, big};
s_body[] = Surface In BoundingBox{-0.01, -W / 2 - 0.01, zb - 0.01, L + 0.01, W / 2 + 0.01, zt + 0.01};
s_rear[] = Surface In BoundingBox{xs - 0.01, -W / 2 - 0.01, zb - 0.01, L + 0.01, W / 2 + 0.01, zt + 0.01};

Physical Surface("inlet") = {s_inlet[]};
Physical Surface("outlet") = {s_outlet[]};
Physical Surface("ground") = {s_ground[]};
Physical Surface("slip") = {s_slip[]};
Physical Surface("body") = {s_body[]};
Physical Volume("fluid") = {fluid[]};

// ---- mesh sizes ----------------------------------------------------------
h_body = 0.012 * sf;  // on the body
h_rear = 0.009 * sf;  // on the slant and base, where the flow separates
h_wake = 0.030 * sf;  // in the wake box
h_far = 0.200 * sf;   // at the tunnel walls

Field[1] = Distance;
Field[1].SurfacesList = {s_body[]};
Field[1].NumPointsPerCurve = 100;
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = h_body;
Field[2].SizeMax = h_far;
Field[2].DistMin = 0.01;
Field[2].DistMax = 1.5;

Field[3] = Distance;
Field[3].SurfacesList = {s_rear[]};
Field[3].NumPointsPerCurve = 100;
Field[4] = Threshold;
Field[4].InField = 3;
Field[4].SizeMin = h_rear;
Field[4].SizeMax = h_far;
Field[4].DistMin = 0.02;
Field[4].DistMax = 1.0;

Field[5] = Box; // the near wake: separated shear layers and the slant vortices
Field[5].VIn = h_wake;
Field[5].VOut = h_far;
Field[5].XMin = xs - 0.1; Field[5].XMax = L + 1.0;
Field[5].YMin = -0.35; Field[5].YMax = 0.35;
Field[5].ZMin = 0; Field[5].ZMax = 0.5;
Field[5].Thickness = 0.5;

Field[6] = Min;
Field[6].FieldsList = {2, 4, 5};
Background Field = 6;

Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.MeshSizeMax = h_far;
Mesh.Algorithm = 6;   // Frontal-Delaunay surfaces
Mesh.Algorithm3D = 1; // Delaunay volume
Mesh.Optimize = 1;
Mesh.RandomSeed = 1;
