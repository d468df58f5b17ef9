export interface ShownError {
  /** The control it is about; null: the whole form's. */
  controlId: string | null;
  label: string;
  message: string;
}

/**
 * The form's errors beside its submit button, each a link to its field (which the link focuses, opening its section
 * first: `onGo`). An alert, so that it is said when it appears.
 */
export function ErrorSummary({ errors, onGo }: { errors: readonly ShownError[]; onGo: (controlId: string) => void }) {
  if (errors.length === 0) return null;
  return (
    <div class="message message-error error-summary" role="alert">
      <p>{errors.length === 1 ? 'The link was not saved:' : `The link was not saved: ${errors.length} things to fix.`}</p>
      <ul>
        {errors.map((error, i) => (
          <li key={i}>
            {error.controlId === null ? (
              error.message
            ) : (
              <a
                href={`#${error.controlId}`}
                onClick={(event) => {
                  event.preventDefault();
                  onGo(error.controlId as string);
                }}
              >
                {error.label}: {error.message}
              </a>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
