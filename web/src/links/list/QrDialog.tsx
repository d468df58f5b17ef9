import { useEffect, useRef, useState } from 'preact/hooks';
import { qrUrl, type Link } from '../api.ts';
import type { LinkKey } from '../link-key.ts';

interface QrDialogProps {
  /** The link whose code is shown; null: the dialog is closed. */
  link: { link: Link; key: LinkKey } | null;
  onClose: () => void;
}

const SIZE = 256;

/**
 * A link's QR code (GET /links/:code/qr) in a modal `<dialog>`, with a PNG to download; its options (size, margin,
 * level) are on the link's page. Focus goes to Close when it opens, and back to what opened it when it closes.
 */
export function QrDialog({ link, onClose }: QrDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const opener = useRef<Element | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (link !== null && !element.open) {
      setFailed(false);
      opener.current = document.activeElement;
      element.showModal();
      closeButton.current?.focus();
    } else if (link === null && element.open) {
      element.close();
      if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
    }
  }, [link]);

  const options = { size: SIZE, margin: 4, level: 'M' } as const;
  return (
    <dialog
      ref={dialog}
      class="dialog qr-dialog"
      aria-labelledby="qr-dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id="qr-dialog-title">QR code</h2>
      {link !== null && (
        <div class="dialog-body">
          <p class="break">
            <code>{link.link.shortUrl}</code>
          </p>
          {link.link.state !== 'active' ? (
            <p class="message message-info">The QR code is available while the link redirects; this link is {link.link.state}.</p>
          ) : failed ? (
            <p class="message message-error">The QR code could not be loaded.</p>
          ) : (
            <img
              src={qrUrl(link.key, { format: 'svg', ...options })}
              alt={`QR code for ${link.link.shortUrl}`}
              width={SIZE}
              height={SIZE}
              onError={() => setFailed(true)}
            />
          )}
        </div>
      )}
      <div class="button-row">
        {link !== null && link.link.state === 'active' && (
          <a class="button" href={qrUrl(link.key, { format: 'png', ...options, size: 1024 })} download={`qr-${link.link.code}.png`}>
            Download PNG
          </a>
        )}
        <button type="button" ref={closeButton} onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
