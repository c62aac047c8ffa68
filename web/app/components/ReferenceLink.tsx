import { navigate, recordPath } from '../navigation.js'

/** A reference shown by the target record's label (its id when unknown), linking to that record's page. */
export function ReferenceLink ({ target, id, label }: { target: string, id: string, label?: string }) {
  const path = recordPath(target, id)
  return <a href={path} title={`${target}/${id}`} onClick={(e) => { navigate(path, e) }}>{label ?? id}</a>
}
