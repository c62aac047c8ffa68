import type { Translate } from '../i18n.js'

/** The choices of a boolean field's select: unset (an optional field left out), yes, no. */
export function BooleanChoices ({ t }: { t: Translate }) {
  return (
    <>
      <option value="">{t('unset')}</option>
      <option value="true">{t('yes')}</option>
      <option value="false">{t('no')}</option>
    </>
  )
}
