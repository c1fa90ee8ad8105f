// One fresh window of the first-wake bench (../firstWake.ts): Life Thread's wake.
import { firstWakePhase } from '../firstWake';

firstWakePhase('life');
