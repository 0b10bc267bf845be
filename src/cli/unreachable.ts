/**
 * What the command line says when the service does not answer at all: where it looked, and the
 * likely cause, rather than the socket's code alone.
 */
export const unreachable = (url: string, error: unknown): Error => {
  const cause = error instanceof Error ? error : new Error(String(error));
  const code =
    (cause as NodeJS.ErrnoException).code ??
    (cause.cause as NodeJS.ErrnoException | undefined)?.code;
  return new Error(
    `The service at ${new URL(url).origin} did not answer (${code ?? cause.message}): is \`attribution start\` running, and is --url its address?`,
    { cause },
  );
};
