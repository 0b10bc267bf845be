/**
 * Follows a revision token (see src/embedded/admin-changes.ts): the returned function reads
 * the token, calls `onChange` first when it moved since the last read, and returns it.
 */
export const followRevision = (revision: () => string, onChange: () => void): (() => string) => {
  let seen = revision();
  return () => {
    const latest = revision();
    if (latest !== seen) {
      onChange();
      seen = latest;
    }
    return latest;
  };
};
