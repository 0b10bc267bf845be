/**
 * Variables that look like a setting misspelled (`ATTRIBUTION_PROT`): unread, so the setting
 * keeps its default, and without a word a service on the wrong port or data folder is hard to
 * trace back to the typo. Only near misses are named: other `ATTRIBUTION_` variables (a test
 * harness's, a user's own scripts') are none of the service's business.
 */

/** How far a name may be from a setting, in letters changed, added, dropped or swapped. */
const NEAR = 2;

export interface MisspelledSetting {
  readonly name: string;
  readonly setting: string;
}

/**
 * The environment's names that are no setting but within a typo of one, each with that
 * setting, compared without case (`attribution_port` is no setting either).
 */
export const misspelledSettings = (
  names: Iterable<string>,
  settings: readonly string[],
): MisspelledSetting[] => {
  const known = new Set(settings);
  const found: MisspelledSetting[] = [];
  for (const name of names) {
    if (known.has(name) || !/^attribution_/i.test(name)) continue;
    let closest: { setting: string; distance: number } | undefined;
    for (const setting of settings) {
      const distance = editDistance(name.toUpperCase(), setting);
      if (distance <= NEAR && (closest === undefined || distance < closest.distance)) {
        closest = { setting, distance };
      }
    }
    if (closest) found.push({ name, setting: closest.setting });
  }
  return found;
};

/** The warning a misspelled setting gets at start. */
export const misspelledSettingWarning = ({ name, setting }: MisspelledSetting): string =>
  `${name} is no setting of this service and is ignored: did you mean ${setting}?`;

/**
 * Letters changed, added, dropped or two neighbours swapped between `a` and `b` (the optimal
 * string alignment distance), stopping early once every path is past `NEAR`.
 */
const editDistance = (a: string, b: string): number => {
  if (Math.abs(a.length - b.length) > NEAR) return NEAR + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (before[j - 2] ?? 0) + 1);
      }
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > NEAR) return NEAR + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? NEAR + 1;
};
