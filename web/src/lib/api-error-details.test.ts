import { describe, expect, test } from 'bun:test';
import { ApiError } from './api';
import { errorDetailsOf, insufficientDetailsOf } from './api-error-details';

const details = {
  totalRequired: '154.35',
  totalAvailable: '100.00',
  insufficientSources: [{ fundingSourceId: 'fs_b', name: 'Amex (•••• 0005)', requiredAmount: '61.74', availableBalance: '10.00' }],
};

describe("an error's details", () => {
  test('an insufficient_funds answer gives its details as sent', () => {
    const body = { error: { type: 'card_error', code: 'insufficient_funds', message: 'Insufficient funds: …', details } };
    const e = new ApiError(402, `402: ${JSON.stringify(body)}`, body);
    expect(insufficientDetailsOf(e)).toEqual(details);
    expect(errorDetailsOf(e)).toEqual(details);
  });

  test('none without details, without a JSON body, or for a failure that is no answer', () => {
    expect(insufficientDetailsOf(new ApiError(400, '400: {}', { error: { type: 'invalid_request_error', code: 'x', message: 'x' } }))).toBeUndefined();
    expect(insufficientDetailsOf(new ApiError(502, '502: Bad Gateway', null))).toBeUndefined();
    expect(insufficientDetailsOf(new TypeError('Failed to fetch'))).toBeUndefined();
  });
});
