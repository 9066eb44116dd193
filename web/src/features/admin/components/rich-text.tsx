import { Fragment, type ReactNode } from 'react';

/**
 * A translated template ("Change the role of {email} …", from t(key) without vars) with some of its {vars} given as
 * elements. Used to isolate left-to-right values (an e-mail, a command) inside Arabic text: plain interpolation would
 * let the bidi algorithm reorder their punctuation ("admin-confirm@x" showing as "-admin-confirm@x").
 */
export function richText(template: string, vars: Record<string, ReactNode>): ReactNode {
  return template.split(/(\{\w+\})/).map((part, i) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    return <Fragment key={i}>{name !== undefined && name in vars ? vars[name] : part}</Fragment>;
  });
}

/** A left-to-right value isolated from the text around it. */
export function Ltr({ children }: { children: ReactNode }) {
  return <bdi dir="ltr">{children}</bdi>;
}
