// The desk bench's window with the warm-up off, the baseline (../deskFirstWake.ts).
import { deskFirstWakePhase } from '../deskFirstWake';

deskFirstWakePhase('unprepared');
