import type { Translate } from '../i18n.js'

/** The choices of a field with an `enum`: unset (left out: the default, or none), then each allowed value as declared. */
export function EnumChoices ({ t, allowed }: { t: Translate, allowed: readonly string[] }) {
  return (
    <>
      <option value="">{t('unset')}</option>
      {allowed.map((value) => <option key={value} value={value}>{value}</option>)}
    </>
  )
}
