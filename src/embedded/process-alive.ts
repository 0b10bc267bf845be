/**
 * Whether a process of this user runs under `pid`. Signal 0 only asks; a process of another
 * user (EPERM) is taken for gone, as a pid reused since is not the process that wrote it.
 */
export const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
