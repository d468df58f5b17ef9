// Names people give things (an API key's, a workspace's): for people, shown in lists. Pure: no I/O.

/** The most characters of a key's or a workspace's name. */
export const NAME_MAX_LENGTH = 100;

/** A name of a key or a workspace, trimmed; undefined when empty, too long or holding a control character. */
export function cleanName(name: string | undefined): string | undefined {
  const trimmed = name?.trim();
  return trimmed === undefined || trimmed.length === 0 || trimmed.length > NAME_MAX_LENGTH || /\p{Cc}/u.test(trimmed) ? undefined : trimmed;
}
