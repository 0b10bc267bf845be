/** TXT records through Node's resolver: the system's DNS servers, or the ones given. */
import { Resolver } from "node:dns/promises";
import type { TxtRecords } from "../../ports/dns.ts";

/** The resolver's answers that mean "no such record", as against "no answer now". */
const NO_RECORD = new Set(["ENODATA", "ENOTFOUND"]);

export const createTxtRecords = (
  options: {
    /** `address` or `address:port` each; the system's servers when none. */
    readonly servers?: readonly string[];
    /** Per try; the resolver tries twice. */
    readonly timeoutMs?: number;
  } = {},
): TxtRecords => {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 2_000, tries: 2 });
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);
  return {
    async txt(name) {
      try {
        return await resolver.resolveTxt(name);
      } catch (error) {
        if (NO_RECORD.has((error as NodeJS.ErrnoException).code ?? "")) return [];
        throw error;
      }
    },
  };
};
