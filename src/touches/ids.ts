/**
 * The ids the touch side makes. Both are URL-safe and unguessable: a deep link id is the one
 * path segment of a link (`https://<link host>/<deeplink_id>`, which the SDKs parse), 11
 * characters of 62 (65 random bits); a click id rides in the Play Store's install referrer
 * back to the install that the click caused, 22 characters of 62 (131 random bits).
 */
import { customAlphabet } from "nanoid";
import * as z from "zod";

export const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export const DEEPLINK_ID_LENGTH = 11;
export const CLICK_ID_LENGTH = 22;

export const newDeeplinkId: () => string = customAlphabet(ALPHABET, DEEPLINK_ID_LENGTH);
export const newClickId: () => string = customAlphabet(ALPHABET, CLICK_ID_LENGTH);

/** The shape of a deep link id this service made; anything else is not worth a lookup. */
export const DEEPLINK_ID_PATTERN = new RegExp(`^[0-9A-Za-z]{${DEEPLINK_ID_LENGTH}}$`);

/**
 * The deep link id a tapped path names: the path itself, or its first 11 letters and digits
 * when what follows them is neither (a bracket or full stop a chat's or a mail's auto-linker
 * took in with the link, an encoded space, a zero-width space pasted after it); null for
 * anything else.
 */
export const deeplinkIdOfPath = (path: string): string | null =>
  DEEPLINK_ID_LEADING.exec(path)?.[1] ?? null;

const DEEPLINK_ID_LEADING = new RegExp(`^([0-9A-Za-z]{${DEEPLINK_ID_LENGTH}})(?:[^0-9A-Za-z]|$)`);

/** The shape of a click id the link host made: what an install carries back, if anything. */
export const CLICK_ID_PATTERN = new RegExp(`^[0-9A-Za-z]{${CLICK_ID_LENGTH}}$`);

/** A deep link id as the API takes one, in a path or a body. */
export const deeplinkIdField = () =>
  z
    .string()
    .regex(DEEPLINK_ID_PATTERN, { error: "must be the deeplink_id of one of the app's links" });
