import { OptionText } from './OptionText.tsx';
import type { OptionProps } from './props.ts';

/** The app links: where iOS and Android visitors are sent, the web target as the fallback. */
export function DeepLinkFields({ id, draft, errors, onChange }: OptionProps<'appIos' | 'appAndroid'>) {
  return (
    <>
      <p class="hint">Phones open your app (myapp://path, or an https universal or app link); without the app, the web target.</p>
      <OptionText id={id('app-ios')} label="iOS app URL" value={draft.appIos} errors={errors} onInput={(appIos) => onChange({ appIos })} />
      <OptionText
        id={id('app-android')}
        label="Android app URL"
        value={draft.appAndroid}
        errors={errors}
        onInput={(appAndroid) => onChange({ appAndroid })}
      />
    </>
  );
}
