/*
 * The Funding Sources tab's parts that load on demand, in one chunk: the Add Bank Account dialog (when opened) and what
 * is owed with its Repay dialog (when something is owed). One chunk, not two: each lazy chunk also costs the entry
 * chunk its name in the preload map, and the entry has almost no budget left (web/src/budgets.test.ts).
 */
export { AddBankAccountDialog } from './add-bank-account-dialog';
export { OwedDetails, OwedToYou } from './owed-details';
