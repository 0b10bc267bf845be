/** TXT records through Node's resolver: the system's DNS servers, or the ones given. */
import { Resolver } from "node:dns/promises";
import type { TxtRecords } from "../../ports/dns.ts";

/** The resolver's answers that mean "no such record", as against "no answer now". */
const NO_RECORD = new Set(["ENODATA", "ENOTFOUND"]);

export const createTxtRecords = (
  options: {
    /** `address` or `address:port` each; the system's servers when none. */
    readonly servers?: readonly string[];
    /**
     * How long one lookup may take in all, its tries and their back-off included: well within
     * the time a settings change is given (10 s on AWS), so that a domain whose DNS does not
     * answer is a refusal that says so, not a timed-out request.
     */
    readonly timeoutMs?: number;
  } = {},
): TxtRecords => {
  const deadlineMs = options.timeoutMs ?? 3_000;
  return {
    async txt(name) {
      // A resolver each: cancelling one ends its own lookups only.
      const resolver = new Resolver({ timeout: Math.ceil(deadlineMs / 2), tries: 2 });
      if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);
      const timer = setTimeout(() => resolver.cancel(), deadlineMs);
      try {
        return await resolver.resolveTxt(name);
      } catch (error) {
        if (NO_RECORD.has((error as NodeJS.ErrnoException).code ?? "")) return [];
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
  };
};
