/**
 * The time zone a report page counts its days in. The app list read at sign-in names each app's
 * zone, but the zone may have been changed since (in another tab, through the API or the CLI);
 * the report's answer names the zone the service counted its days in (`time_zone`: the app's as
 * stored). So the page goes by the answer's once it has one (its legend, today, the date inputs'
 * `max` and the presets), by the list's before; and an answer of another zone than the list's
 * says the list is behind, to be read again.
 */
export interface ReportZone {
  /** The zone the page's days are of. */
  readonly zone: string;
  /** The answer names another zone than the app list: the list is to be read again. */
  readonly listBehind: boolean;
}

/** `listed`: the app list's zone for the app; `answered`: the answer's, null without one. */
export const reportZone = (listed: string, answered: string | null | undefined): ReportZone =>
  answered === null || answered === undefined || answered === ""
    ? { zone: listed, listBehind: false }
    : { zone: answered, listBehind: answered !== listed };
