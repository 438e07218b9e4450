// CPU time that process.cpuUsage() does not see, read from Linux's /proc: a process's own (the
// loopback Hub's), and that of the children this process has waited for (curl's, once it exited).
import { readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime, stime, cutime, cstime of `pid` in ms (the fields after the parenthesised name). */
function times(pid: number | 'self'): number[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is the state (field 3); utime is field 14
  return [11, 12, 13, 14].map((i) => Number(fields[i]) * TICK_MS);
}

/** User + system CPU ms of a running process. */
export function processCpuMs(pid: number): number {
  const [utime = 0, stime = 0] = times(pid);
  return utime + stime;
}

/** User + system CPU ms of this process's exited and waited-for children. */
export function childrenCpuMs(): number {
  const [, , cutime = 0, cstime = 0] = times('self');
  return cutime + cstime;
}
