/**
 * The charts' colours. Each is at least 3:1 against the white of a card and the page's
 * background (WCAG 1.4.11), so that a bar or a slice can be told from what is around it; the
 * greys, which stand for installs of no source, differ in hue and lightness from each other.
 */

/** Organic installs: a cool grey. */
export const ORGANIC_COLOUR = "#6b7280";

/** Installs credited to no source, "none (not attributed)": a warm grey, lighter. */
export const UNATTRIBUTED_COLOUR = "#8f877f";

/** The series that sums the smaller ones: a dark warm grey. */
export const OTHER_COLOUR = "#44403c";

/** The other series' colours, in turn. */
export const PALETTE: readonly string[] = [
  "#2563eb",
  "#b45309",
  "#059669",
  "#db2777",
  "#7c3aed",
  "#0891b2",
  "#4d7c0f",
  "#dc2626",
  "#4f46e5",
  "#a16207",
];
