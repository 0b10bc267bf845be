/** What the benchmarks share: a process's CPU time, medians, and how figures are printed. */
import { readFile } from "node:fs/promises";

/** User plus system CPU seconds of a process so far, from Linux's /proc (clock ticks of 10 ms). */
export const cpuSeconds = async (pid: number | undefined): Promise<number> => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of stat(5); fields[0] here is field 3.
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
export const int = (value: number) => Math.round(value).toLocaleString("en-US");
export const ms = (value: number) => `${value.toFixed(1)} ms`;
/** CPU a request: a tenth of a millisecond is most of a reference's. */
export const cpuMs = (value: number) => `${value.toFixed(2)} ms`;
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
export const verdict = (met: boolean) => (met ? "met" : "NOT MET");
