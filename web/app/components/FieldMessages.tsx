/** The service's messages about one field (or one action), tied to the control by `id` (aria-describedby). */
export function FieldMessages ({ id, messages }: { id: string, messages: readonly string[] | undefined }) {
  if (messages === undefined || messages.length === 0) return null
  return (
    <p class="field-error" id={id}>
      {messages.map((message, i) => <span key={i}>{i > 0 ? ' ' : ''}{message}</span>)}
    </p>
  )
}

/** The props that connect a control to its messages. */
export function describedBy (id: string, messages: readonly string[] | undefined): { 'aria-invalid'?: 'true', 'aria-describedby'?: string } {
  return messages === undefined || messages.length === 0 ? {} : { 'aria-invalid': 'true', 'aria-describedby': id }
}
