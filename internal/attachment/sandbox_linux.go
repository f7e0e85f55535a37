package attachment

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sandboxNice is the CPU priority of a sandbox child: below the server's,
// so that asks get the cores first.
const sandboxNice = 10

// sandboxAttr makes the kernel kill a sandbox child when the server
// that started it dies (a kill -9 leaves no child running on).
func sandboxAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// limitProcess bounds the sandbox child: its address space may grow by
// grow bytes from what it holds now (RLIMIT_AS; an allocation past it
// fails and ends the child), it may use cpu of processor time
// (RLIMIT_CPU, rounded up to a second: a backstop should it outlive the
// server's kill), and every thread it has runs at nice sandboxNice (on
// Linux a thread's priority is its own; the threads the runtime starts
// later inherit it from the thread that starts them).
func limitProcess(grow int64, cpu time.Duration) error {
	size, err := vmSize()
	if err != nil {
		return err
	}
	limit := uint64(size + grow)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		return fmt.Errorf("limit the address space: %w", err)
	}
	secs := uint64((cpu + time.Second - 1) / time.Second)
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: secs, Max: secs + 1}); err != nil {
		return fmt.Errorf("limit the processor time: %w", err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil // the priority is a courtesy; the limits hold without it
	}
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, sandboxNice)
		}
	}
	return nil
}

// vmSize returns the process's address space size (VmSize), in bytes.
func vmSize() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmSize in /proc/self/status")
}
