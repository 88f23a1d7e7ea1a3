package main

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestIdleListener: an open connection keeps the server busy however long
// it stays open; the idle time counts from the last one closed, and the
// stop comes only after that.
func TestIdleListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newIdleListener(ln)
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server := <-accepted
	if d := l.idleFor(time.Now().Add(time.Hour)); d != 0 {
		t.Fatalf("idle for %v with a connection open", d)
	}
	server.Close()
	server.Close() // a second close must not count twice
	closed := time.Now()
	if d := l.idleFor(closed.Add(time.Minute)); d < time.Minute-time.Second || d > time.Minute+time.Second {
		t.Fatalf("idle for %v a minute after the close", d)
	}
	l.mu.Lock()
	open := l.open
	l.mu.Unlock()
	if open != 0 {
		t.Fatalf("open connections = %d after closing the only one", open)
	}
	stopped := make(chan struct{})
	go l.exitWhenIdle(context.Background(), 20*time.Millisecond, func() { close(stopped) })
	<-stopped
	if time.Since(closed) < 20*time.Millisecond {
		t.Fatal("stopped before the idle time passed")
	}
}
