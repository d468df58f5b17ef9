// The Go reference for the redirect path: fasthttp, and a sharded map of code → prebuilt answer
// filled at start from a file of "code url" lines. It answers GET /:code with the service's 302
// (Location, Cache-Control, Content-Length: 0) and anything else with a bare 404, and does
// nothing else. The load suite builds it offline against Debian's packaged fasthttp
// (GO111MODULE=off, GOPATH=/usr/share/gocode) and runs it as the `go` scenario.
//
//	LINKS_FILE=links.txt PORT=0 GOMAXPROCS=1 ./go-fasthttp
package main

import (
	"bufio"
	"fmt"
	"hash/maphash"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/valyala/fasthttp"
)

const shardCount = 64

type shard struct {
	sync.RWMutex
	links map[string][]byte
}

type table struct {
	seed   maphash.Seed
	shards [shardCount]shard
}

func newTable() *table {
	t := &table{seed: maphash.MakeSeed()}
	for i := range t.shards {
		t.shards[i].links = make(map[string][]byte)
	}
	return t
}

func (t *table) shardOf(code []byte) *shard {
	return &t.shards[maphash.Bytes(t.seed, code)%shardCount]
}

func (t *table) put(code string, url string) {
	s := t.shardOf([]byte(code))
	s.Lock()
	s.links[code] = []byte(url)
	s.Unlock()
}

// get converts in the map index expression, which Go compiles without allocating.
func (t *table) get(code []byte) ([]byte, bool) {
	s := t.shardOf(code)
	s.RLock()
	url, ok := s.links[string(code)]
	s.RUnlock()
	return url, ok
}

func main() {
	links := newTable()
	count, err := load(links, os.Getenv("LINKS_FILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cacheControl := os.Getenv("REDIRECT_CACHE_CONTROL")
	if cacheControl == "" {
		cacheControl = "private, max-age=90"
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "0"
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:"+port)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server := &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			path := ctx.Path()
			if ctx.IsGet() && len(path) > 1 {
				if url, ok := links.get(path[1:]); ok {
					ctx.SetStatusCode(fasthttp.StatusFound)
					ctx.Response.Header.SetBytesV("Location", url)
					ctx.Response.Header.Set("Cache-Control", cacheControl)
					return
				}
			}
			ctx.SetStatusCode(fasthttp.StatusNotFound)
		},
		NoDefaultServerHeader:         true,
		NoDefaultDate:                 true,
		NoDefaultContentType:          true,
		DisableHeaderNamesNormalizing: true,
	}
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
		<-stop
		os.Exit(0)
	}()
	// The line every server of the load suite announces itself with (load/listening.ts).
	fmt.Printf("{\"msg\":\"Server listening at http://%s\",\"links\":%d}\n", ln.Addr().String(), count)
	if err := server.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func load(links *table, file string) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, fmt.Errorf("LINKS_FILE: %w", err)
	}
	defer f.Close()
	count := 0
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		code, url, ok := strings.Cut(lines.Text(), " ")
		if !ok {
			continue
		}
		links.put(code, url)
		count++
	}
	return count, lines.Err()
}
