/**
 * What the overview's SKAdNetwork section says when a range counts no postback: the setup to
 * check when none came, and otherwise why those that came are not counted, so that an owner
 * whose only postbacks are tests, or unverified, is not sent to a setup that works.
 */
import { formatCount } from "./format.ts";

export interface PostbackCounts {
  readonly received: number;
  readonly unverified: number;
  readonly development: number;
}

const postbacksOf = (count: number) => `${formatCount(count)} postback${count === 1 ? "" : "s"}`;

/** Null when none came: then the setup is what to check. */
export const uncountedPostbacks = (
  postbacks: PostbackCounts,
  developmentIncluded: boolean,
): string | null => {
  if (postbacks.received === 0) return null;
  const parts = [`${postbacksOf(postbacks.received)} came in this range, none of them counted.`];
  if (postbacks.development > 0 && !developmentIncluded) {
    parts.push(
      `${postbacksOf(postbacks.development)} verified with a development key (a test's, from Xcode or a device's developer settings): tick "Include development postbacks" to count ${postbacks.development === 1 ? "it" : "them"}.`,
    );
  }
  if (postbacks.unverified > 0) {
    parts.push(
      `${postbacksOf(postbacks.unverified)} could not be verified with Apple's keys, and ${postbacks.unverified === 1 ? "counts" : "count"} only where the report is asked for ${postbacks.unverified === 1 ? "it" : "them"} (include=unverified).`,
    );
  }
  return parts.join(" ");
};
