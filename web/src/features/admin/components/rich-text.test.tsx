import { describe, expect, test } from 'bun:test';
import { renderToStaticMarkup } from 'react-dom/server';
import { Ltr, richText } from './rich-text';

describe('richText', () => {
  test('puts elements where their {vars} are, keeps the rest of the template and unknown {vars} as written', () => {
    const html = renderToStaticMarkup(<p>{richText('Change {email} from {from} to {to}? {other}', { email: <Ltr>a-b@example.com</Ltr>, from: 'User', to: 'Merchant' })}</p>);
    expect(html).toBe('<p>Change <bdi dir="ltr">a-b@example.com</bdi> from User to Merchant? {other}</p>');
  });
});
