/** The scripted model's answer to the reminder, looked for after the reload. */
export const ANSWER = 'ANSWER-KEPT-42: the nightly build is green, 2 PRs merged.';
