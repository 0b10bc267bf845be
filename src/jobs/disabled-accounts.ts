/** The disabled accounts job's composition (its work: src/dashboard/disabled-accounts.ts). */
import { endDisabledAccountsSessions } from "../dashboard/disabled-accounts.ts";
import { composition } from "../functions/adapters.ts";
import { logger } from "../logging/logger.ts";
import type { JobRun } from "./job-run.ts";
import { jobOf } from "./jobs.ts";

const DISABLED_ACCOUNTS = /* @__PURE__ */ jobOf("disabled-accounts");

export const disabledAccountsJob = /* @__PURE__ */ composition(
  { id: DISABLED_ACCOUNTS.id, uses: DISABLED_ACCOUNTS.aws.uses },
  ({ tables, credentials }): JobRun<number> => ({
    run: () => endDisabledAccountsSessions({ users: tables.users, credentials }),
    report: (ended) => {
      if (ended > 0) logger.info("sessions of disabled accounts ended", { people: ended });
    },
  }),
);
