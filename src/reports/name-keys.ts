/**
 * Names and ids as the reports take two of them for one (src/reports/cohorts.ts matches a cost
 * row to its touches so, and src/costs/ takes two cost rows for one so): a network's report and
 * a link typed by hand spell a campaign apart in just these ways. No import beyond the language,
 * so that the dashboard's bundle reads them as the service does.
 */

/**
 * A name as it is matched: trimmed, in one Unicode form (NFC: "é" typed as one character or as
 * "e" and an accent) and case folded (upper then lower case, so that "ß" and "SS" meet as
 * Unicode's full folding has them). Nothing else is taken as the same name.
 */
export const nameKey = (name: string): string =>
  name.normalize("NFC").trim().toUpperCase().toLowerCase().normalize("NFC");

/**
 * An id as it is matched: trimmed and in one Unicode form, its case kept, since a network's ids
 * may differ in case alone.
 */
export const idKey = (id: string): string => id.normalize("NFC").trim();
