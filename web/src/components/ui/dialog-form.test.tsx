import { describe, expect, test } from 'bun:test';
import { renderToStaticMarkup } from 'react-dom/server';
import { closeUnlessBusy, DialogForm, FormActions } from './dialog-form';

describe('closeUnlessBusy', () => {
  test('passes opening and closing through while idle; ignores a close while busy', () => {
    const calls: boolean[] = [];
    closeUnlessBusy(false, (o) => calls.push(o))(false);
    closeUnlessBusy(false, (o) => calls.push(o))(true);
    closeUnlessBusy(true, (o) => calls.push(o))(false);
    closeUnlessBusy(true, (o) => calls.push(o))(true);
    expect(calls).toEqual([false, true, true]);
  });
});

describe('FormActions', () => {
  const cancel = { label: 'Cancel', onClick() {} };
  const buttons = (html: string) => html.match(/<button[^>]*>.*?<\/button>/g) ?? [];

  test('Cancel, then submit, in a footer that stacks on a phone', () => {
    const html = renderToStaticMarkup(<FormActions submit={{ label: 'Save', testId: 'save' }} cancel={cancel} />);
    expect(html).toStartWith('<div class="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">');
    const [c, s] = buttons(html);
    expect(c).toContain('type="button"');
    expect(c).toContain('>Cancel</button>');
    expect(s).toContain('type="submit"');
    expect(s).toContain('data-testid="save"');
    expect(s).not.toContain('disabled=""');
    expect(s).toContain('>Save</button>');
  });

  test('pending: the submit spins, says its pending label, and is disabled', () => {
    const html = renderToStaticMarkup(<FormActions submit={{ label: 'Save', pendingLabel: 'Saving...', pending: true }} cancel={cancel} />);
    const [, s] = buttons(html);
    expect(s).toContain('disabled=""');
    expect(s).toContain('animate-spin');
    expect(s).toContain('Saving...</button>');
  });

  test('pending without a pending label keeps its label', () => {
    const [, s] = buttons(renderToStaticMarkup(<FormActions submit={{ label: 'Add', pending: true }} cancel={cancel} />));
    expect(s).toContain('Add</button>');
  });

  test('disabled for another reason: no spinner', () => {
    const [, s] = buttons(renderToStaticMarkup(<FormActions submit={{ label: 'Add', disabled: true }} cancel={cancel} />));
    expect(s).toContain('disabled=""');
    expect(s).not.toContain('animate-spin');
  });

  test('destructive submit, a disabled Cancel with its test id, extra footer classes', () => {
    const html = renderToStaticMarkup(
      <FormActions
        submit={{ label: 'Turn off', variant: 'destructive' }}
        cancel={{ ...cancel, disabled: true, testId: 'cancel' }}
        className="pt-2"
      />,
    );
    expect(html).toStartWith('<div class="flex flex-col-reverse gap-2 pt-2 sm:flex-row sm:justify-end">');
    const [c, s] = buttons(html);
    expect(c).toContain('disabled=""');
    expect(c).toContain('data-testid="cancel"');
    expect(s).toContain('bg-red-600');
  });
});

test('DialogForm: no browser validation, its name, the fields before the footer', () => {
  const html = renderToStaticMarkup(
    <DialogForm onSubmit={() => {}} label="Edit" className="space-y-5" submit={{ label: 'Save' }} cancel={{ label: 'Cancel', onClick() {} }}>
      <input name="a" />
    </DialogForm>,
  );
  expect(html).toStartWith('<form noValidate="" class="space-y-5" aria-label="Edit"><input name="a"/><div class="flex flex-col-reverse');
});
