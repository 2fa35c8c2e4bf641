import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal form on the native <dialog>: the browser keeps focus inside it,
 * Escape closes it, and focus returns to where it was.
 */
export function Dialog({ title, open, onClose, children }: { title: string; open: boolean; onClose(): void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);
  return (
    <dialog ref={ref} onClose={onClose} aria-label={title}>
      {open && (
        <>
          <h2>{title}</h2>
          {children}
        </>
      )}
    </dialog>
  );
}

/** The row that ends every dialog form: Cancel, then the form's action. */
export function DialogButtons({ submit, onCancel }: { submit: string; onCancel(): void }) {
  return (
    <div class="buttons">
      <button type="button" class="secondary" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit">{submit}</button>
    </div>
  );
}
