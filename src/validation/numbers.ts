/**
 * Numbers as the stores can keep them. DynamoDB holds a number of magnitude 1e-130 to 1e126, and
 * its document client takes none beyond JavaScript's safe integers; a value past either would be
 * accepted here and refused there, a 500 rather than the caller's 422.
 */
import type * as z from "zod";

/** The smallest magnitude, other than 0, that a stored number may have. */
export const SMALLEST_STORED = 1e-6;

/** Whether a number is 0 or of a magnitude from SMALLEST_STORED to the largest safe integer. */
export const storable = (value: number): boolean => {
  const magnitude = Math.abs(value);
  return magnitude === 0 || (magnitude >= SMALLEST_STORED && magnitude <= Number.MAX_SAFE_INTEGER);
};

/**
 * A number schema refused with a 422 when the stores could not keep it; `max`, the schema's own
 * bound where it has one, is the one its refusal names (a cost of 1e-7 is told the costs' top,
 * not the stores').
 */
export const storedNumber = <T extends z.ZodNumber>(schema: T, max = Number.MAX_SAFE_INTEGER) =>
  schema.refine(storable, {
    error: `must be 0 or of a magnitude from ${SMALLEST_STORED} to ${max}`,
  });
