// The floor of a whole process on this machine: a static program that does nothing. bench/run
// times `torchdex detect` beside it, run for run (bench/timeit.py --vs), so the ratio says what
// torchdex's own start-up costs whatever the machine's speed.
int main() { return 0; }
