// The end-effector pose update of V-JEPA 2-AC's planner (mpc_utils.compute_new_pose): xyz add, the
// rotation delta composes on the left (R_new = R_delta · R_pose) with extrinsic xyz Euler angles as
// scipy's Rotation.from_euler("xyz") reads them, the gripper adds and clips to [0, 1].
// Poses and actions are [x, y, z, roll, pitch, yaw, gripper].

type Mat3 = [number, number, number, number, number, number, number, number, number];

/** Extrinsic x-then-y-then-z: R = Rz(c) · Ry(b) · Rx(a), row-major. */
export function eulerXyzToMatrix(a: number, b: number, c: number): Mat3 {
  const [ca, sa, cb, sb, cc, sc] = [Math.cos(a), Math.sin(a), Math.cos(b), Math.sin(b), Math.cos(c), Math.sin(c)];
  return [cc * cb, cc * sb * sa - sc * ca, cc * sb * ca + sc * sa, sc * cb, sc * sb * sa + cc * ca, sc * sb * ca - cc * sa, -sb, cb * sa, cb * ca];
}

/** The inverse of eulerXyzToMatrix, pitch in [−π/2, π/2]; at gimbal lock the yaw is 0, as scipy sets it. */
export function matrixToEulerXyz(m: Mat3): [number, number, number] {
  const pitch = Math.atan2(-m[6], Math.hypot(m[0], m[3]));
  if (Math.hypot(m[7], m[8]) < 1e-12) return [Math.atan2(-m[6] * m[1], m[4]), pitch, 0];
  return [Math.atan2(m[7], m[8]), pitch, Math.atan2(m[3], m[0])];
}

function multiply(x: Mat3, y: Mat3): Mat3 {
  const out = new Array(9).fill(0) as Mat3;
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[r * 3 + c] = x[r * 3]! * y[c]! + x[r * 3 + 1]! * y[3 + c]! + x[r * 3 + 2]! * y[6 + c]!;
  return out;
}

/** One pose (7 values) after one action (7 values). */
export function composePose(pose: ArrayLike<number>, action: ArrayLike<number>, out = new Float32Array(7), at = 0): Float32Array {
  for (let i = 0; i < 3; i++) out[at + i] = pose[i]! + action[i]!;
  const r = multiply(eulerXyzToMatrix(action[3]!, action[4]!, action[5]!), eulerXyzToMatrix(pose[3]!, pose[4]!, pose[5]!));
  const [roll, pitch, yaw] = matrixToEulerXyz(r);
  out[at + 3] = roll;
  out[at + 4] = pitch;
  out[at + 5] = yaw;
  out[at + 6] = Math.min(1, Math.max(0, pose[6]! + action[6]!));
  return out;
}
