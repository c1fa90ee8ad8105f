// One fresh window of the first-wake bench (../firstWake.ts): the bare participant.
import { firstWakePhase } from '../firstWake';

firstWakePhase('bare');
