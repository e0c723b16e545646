#!/usr/bin/perl
# Checks of make test that every citation in a comment, a message or a page
# leads somewhere, one "ok"/"not ok" line per kind: docs pages, headings
# (a link's #anchor, or a quoted section title with its page, as in
# (docs/fleet.md, "What a fleet guarantees") or "Cut a release" in
# CONTRIBUTING.md), and repository files (NAME.hpp, sql/functions/NAME.sql).
# Each dangling citation is printed with its file and line. A last check
# fails when it found fewer citations than a repository of this size has,
# so a scanner that stopped reading cannot pass.
#
# What it reads: src/, sql/, test/, debian/, the Makefile and every page
# but bench/report.md (make bench writes it).
# Of code, only comments and string literals (messages) are read: a path in
# code is exercised by running it. Not citations: #include lines (the
# compiler checks them), URLs, absolute paths and paths under a folder the
# repository does not have (a data directory's postgresql.conf), names with
# a placeholder (sql/NAME.sql, crid--A--B.sql, 0xx_*.pl), files of other
# projects (a .c or .h not in the repository is PostgreSQL's: crid's code
# is C++), the install and upgrade scripts (released ones are frozen, built
# and future ones are the release checks' concern) and files the build
# makes (NAME when NAME.in exists, or what .gitignore lists).
use strict;
use warnings;
use File::Basename qw(basename dirname);

# The repository: the one this script is in, or the folder given.
my $root = shift // dirname(dirname(dirname(__FILE__)));
chdir $root or die "cannot enter $root: $!";

my @files = grep { -f } split /\n/, `git ls-files --cached --others --exclude-standard`;
die "git ls-files found no files in $root\n" unless @files;
my (%is_file, %is_dir, %dir_names, %by_name, %extensions);
for my $f (@files) {
    $is_file{$f} = 1;
    push @{ $by_name{ basename($f) } }, $f;
    $extensions{$1} = 1 if basename($f) =~ /\.(\w+)$/;
    for (my $d = dirname($f); $d ne '.'; $d = dirname($d)) {
        $is_dir{$d} = 1;
        $dir_names{ basename($d) } = 1;
    }
}
# The extension's name, as its install scripts are named (crid--1.0.sql).
my ($control) = grep { m{^[^/]+\.control$} } @files;
my $extension = $control ? basename($control, '.control') : 'crid';

my @scanned = grep {
    my $f = $_;
    ($f =~ m{^(src|sql|test)/} && $f =~ /\.(cpp|hpp|h|c|sql|in|sh|pl|pm|spec|conf)$|(^|\/)Makefile$/)
      || $f =~ m{^debian/} || $f eq 'Makefile' || ($f =~ /\.md$/ && $f !~ m{^bench/})
} @files;
# Install and upgrade scripts: a released one is never edited again.
@scanned = grep { basename($_) !~ /^\Q$extension\E--[0-9].*\.sql$/ } @scanned;

# --- reading comments and messages -----------------------------------------
# A segment is text with the line it starts on and the offsets of its line
# breaks, so a citation wrapped over lines (or split over adjacent C string
# literals) is found whole and reported at its line.
sub segment { return { file => $_[0], line => $_[1], text => '', breaks => [] } }
sub add_text {
    my ($s, $text, $newlines) = @_;
    $s->{text} .= $text;
    push @{ $s->{breaks} }, length($s->{text}) - 1 for 1 .. ($newlines // 0);
}
sub line_at {
    my ($s, $offset) = @_;
    return $s->{line} + scalar grep { $_ < $offset } @{ $s->{breaks} };
}

# C++: comments (consecutive // lines as one) and string literals (adjacent
# ones joined, as the compiler joins them).
sub cpp_segments {
    my ($file, $src) = @_;
    my (@out, $last_kind, $last_end_line);
    my ($line, $i, $n) = (1, 0, length $src);
    while ($i < $n) {
        my $rest = substr($src, $i, 3);
        if (substr($src, $i) =~ /\A#\s*include[^\n]*/) {
            $i += length $&;
        } elsif ($rest =~ m{^//}) {
            my ($text) = substr($src, $i) =~ m{\A//([^\n]*)};
            my $s = ($last_kind // '') eq 'comment' && $last_end_line == $line - 1 ? $out[-1] : undef;
            if ($s) { add_text($s, "\n", 1) } else { push @out, $s = segment($file, $line) }
            add_text($s, $text);
            ($last_kind, $last_end_line) = ('comment', $line);
            $i += 2 + length $text;
        } elsif ($rest =~ m{^/\*}) {
            my $end = index($src, '*/', $i + 2);
            $end = $n if $end < 0;
            my $body = substr($src, $i + 2, $end - $i - 2);
            my $s = segment($file, $line);
            for my $l (split /\n/, $body, -1) {
                add_text($s, "\n", 1) if length $s->{text} || @{ $s->{breaks} };
                $l =~ s/^\s*\*(?!\/)//;
                add_text($s, $l);
            }
            push @out, $s;
            $line += ($body =~ tr/\n//);
            ($last_kind, $last_end_line) = ('comment', $line);
            $i = $end + 2;
        } elsif ($rest =~ /^R"/ && substr($src, $i) =~ /\AR"([^(\s]*)\((.*?)\)\1"/s) {
            my ($whole, $body) = ($&, $2);
            my $s = segment($file, $line);
            add_text($s, $_, 1) for split /(?<=\n)/, $body;
            push @out, $s;
            $line += ($whole =~ tr/\n//);
            $last_kind = 'code';
            $i += length $whole;
        } elsif ($rest =~ /^"/) {
            my ($body) = substr($src, $i) =~ /\A"((?:[^"\\\n]|\\.)*)"/;
            $body //= '';
            (my $text = $body) =~ s/\\(.)/$1 eq 'n' ? ' ' : $1/ge;
            if (($last_kind // '') eq 'string') { add_text($out[-1], $text) }
            else { push @out, segment($file, $line); add_text($out[-1], $text) }
            $last_kind = 'string';
            $i += 2 + length $body;
        } elsif ($rest =~ /^'/) {
            my ($lit) = substr($src, $i) =~ /\A('(?:[^'\\\n]|\\.)*')/;
            $i += length($lit // "'");
            $last_kind = 'code';
        } else {
            my $c = substr($src, $i, 1);
            if ($c eq "\n") {
                $line++;
                # Adjacent string literals stay joined over line breaks.
                push @{ $out[-1]{breaks} }, length($out[-1]{text}) - 1 if ($last_kind // '') eq 'string';
            } elsif ($c !~ /\s/) {
                $last_kind = 'code';
            }
            $i++;
        }
    }
    return @out;
}

# SQL: -- comments (consecutive lines as one) and string literals, such as
# the messages of RAISE.
sub sql_segments {
    my ($file, $src) = @_;
    my (@out, $comment, $string);
    my $line = 0;
    for my $l (split /\n/, $src, -1) {
        $line++;
        my $had_comment = 0;
        my $i = 0;
        while ($i < length $l) {
            my $c = substr($l, $i, 1);
            if ($string) {
                if ($c eq "'" && substr($l, $i + 1, 1) eq "'") { add_text($string, "'"); $i += 2; next }
                if ($c eq "'") { push @out, $string; undef $string; $i++; next }
                add_text($string, $c);
                $i++;
            } elsif ($c eq "'") {
                $string = segment($file, $line);
                $i++;
            } elsif (substr($l, $i, 2) eq '--') {
                my $text = substr($l, $i + 2);
                if ($comment && $comment->{last} == $line - 1) { add_text($comment, "\n", 1) }
                else { push @out, $comment = segment($file, $line) }
                add_text($comment, $text);
                $comment->{last} = $line;
                $had_comment = 1;
                last;
            } else {
                $i++;
            }
        }
        add_text($string, "\n", 1) if $string;
    }
    push @out, $string if $string;
    return @out;
}

# Shell, Perl, make, isolation specs, debian/: # comments, consecutive lines
# as one; a # inside quotes or a word ($#, s#a#b#) starts none.
sub hash_segments {
    my ($file, $src) = @_;
    my (@out, $comment);
    my $line = 0;
    for my $l (split /\n/, $src, -1) {
        $line++;
        next if $line == 1 && $l =~ /^#!/;
        my ($quote, $text) = ('');
        for my $i (0 .. length($l) - 1) {
            my $c = substr($l, $i, 1);
            if ($quote) { $quote = '' if $c eq $quote && substr($l, $i - 1, 1) ne '\\'; next }
            if ($c eq '"' || $c eq "'") { $quote = $c; next }
            if ($c eq '#' && ($i == 0 || substr($l, $i - 1, 1) =~ /\s/)) { $text = substr($l, $i + 1); last }
        }
        next unless defined $text;
        if ($comment && $comment->{last} == $line - 1) { add_text($comment, "\n", 1) }
        else { push @out, $comment = segment($file, $line) }
        add_text($comment, $text);
        $comment->{last} = $line;
    }
    return @out;
}

# A page: all of it (prose, tables, code blocks).
sub page_segments {
    my ($file, $src) = @_;
    my $s = segment($file, 1);
    add_text($s, $_, 1) for split /(?<=\n)/, $src;
    return ($s);
}

sub segments_of {
    my ($file) = @_;
    open my $fh, '<', $file or die "cannot read $file: $!";
    my $src = do { local $/; <$fh> };
    return page_segments($file, $src) if $file =~ /\.md$/ || $file =~ m{^debian/(changelog|control|copyright)};
    return cpp_segments($file, $src) if $file =~ /\.(cpp|hpp|h|c)$/;
    return sql_segments($file, $src) if $file =~ /\.(sql|sql\.in)$/;
    return hash_segments($file, $src);
}

# --- what exists ---------------------------------------------------------------
# GitHub's anchors of a page's headings (lower case, punctuation dropped,
# spaces to hyphens, -1, -2 ... for repeats), outside code blocks.
my %anchors_of;
sub anchor_of {
    my $t = lc shift;
    $t =~ s/[^\w\- ]//g;
    $t =~ s/ /-/g;
    return $t;
}
sub anchors {
    my ($page) = @_;
    return $anchors_of{$page} //= do {
        my (%set, %seen, $fenced);
        open my $fh, '<', $page or die "cannot read $page: $!";
        while (<$fh>) {
            $fenced = !$fenced if /^\s*```/;
            next if $fenced;
            $set{$1} = 1 while /<a\s+(?:name|id)="([^"]+)"/g;
            next unless /^#{1,6}\s+(.*?)\s*#*\s*$/;
            my $a = anchor_of($1);
            $set{ $seen{$a} ? "$a-$seen{$a}" : $a } = 1;
            $seen{$a}++;
        }
        \%set;
    };
}

sub normalize {
    my @parts;
    for (split m{/}, shift) {
        next if $_ eq '.' || $_ eq '';
        if ($_ eq '..') { return undef unless @parts; pop @parts } else { push @parts, $_ }
    }
    return join '/', @parts;
}

# The repository file or folder a citation in $from names: relative to the
# citing file's folder, to the root, or as the tail of a path (core/NAME.hpp
# from src/pg, t/NAME.pl); a bare name anywhere. Empty when none.
sub resolve {
    my ($cited, $from) = @_;
    my $dir = dirname($from);
    for my $p (normalize("$dir/$cited"), $cited =~ m{^\.\.?/} ? () : normalize($cited)) {
        return $p if defined $p && ($is_file{$p} || $is_dir{$p});
    }
    return '' if $cited =~ m{^\.\.?/};
    return ($by_name{$cited} // [''])->[0] unless $cited =~ m{/};
    my ($tail) = grep { m{/\Q$cited\E$} } @files;
    return $tail // '';
}

# Files make builds: NAME from NAME.in, and what .gitignore lists.
my %ignored;
sub generated {
    my ($cited, $from) = @_;
    return 1 if resolve("$cited.in", $from);
    my @candidates = $cited =~ m{/} ? (normalize($cited), normalize(dirname($from) . "/$cited"))
                                    : map { "$_/$cited" } '.', keys %is_dir;
    for my $c (grep { defined } @candidates) {
        $ignored{$c} //= system('git', 'check-ignore', '-q', '--no-index', $c) == 0 ? 1 : 0;
        return 1 if $ignored{$c};
    }
    return 0;
}

# The page a name like README, README.md, docs/NAME.md or NAME.md means from $from.
sub page_of {
    my ($name, $from) = @_;
    $name .= '.md' if $name =~ /^(README|CONTRIBUTING)$/;
    my $p = resolve($name, $from);
    return $p if $p =~ /\.md$/;
    return '';
}

# --- the citations ----------------------------------------------------------------
my %found;    # kind => number of citations
my %dangling; # kind => ["file:line: why", ...]
my %counted;
sub cite {
    my ($kind, $s, $offset, $what, $problem) = @_;
    my $where = "$s->{file}:" . line_at($s, $offset);
    return if $counted{"$kind $where $what"}++;
    $found{$kind}++;
    print STDERR "$kind $where $what\n" if $ENV{CITATIONS_LIST};
    push @{ $dangling{$kind} }, "$where: $what: $problem" if $problem;
}

sub check_heading {
    my ($s, $offset, $what, $page, $anchor) = @_;
    cite('heading', $s, $offset, $what, anchors($page)->{$anchor} ? '' : "$page has no such heading");
}

my $page_name = qr{(?:\.\.?/)*(?:[\w-]+/)*[\w-]+\.md|\bREADME\b|\bCONTRIBUTING\b};
my $ext_re = join '|', map { quotemeta } sort keys %extensions;

for my $file (@scanned) {
    for my $s (segments_of($file)) {
        my $text = $s->{text};

        # Links of pages: [text](target#anchor); targets are relative to the page.
        if ($file =~ /\.md$/) {
            while ($text =~ /\[[^\]]*\]\(([^)\s]+)\)/g) {
                my ($target, $at) = ($1, $-[1]);
                substr($text, $-[1], length $target) = ' ' x length $target;
                next if $target =~ m{^[a-z]+:} || $target =~ m{^/};
                my ($path, $anchor) = split /#/, $target, 2;
                my $page = $path eq '' ? $file : normalize(dirname($file) . "/$path");
                my $kind = $page && $page =~ /\.md$/ ? 'page' : 'file';
                my $exists = $page && ($is_file{$page} || $is_dir{$page});
                cite($kind, $s, $at, $target, $exists ? '' : 'no such file');
                check_heading($s, $at, $target, $page, $anchor) if $exists && defined $anchor && $page =~ /\.md$/;
            }
        }

        # A section by its title after its page, or "in" or "of" a page:
        # (docs/fleet.md, "What a fleet guarantees"), "Cut a release" in
        # CONTRIBUTING.md.
        my $flat = $text;
        while ($flat =~ /($page_name)(?:,\s*|\s*\(\s*)"([^"]+)"/g) {
            my ($name, $title, $at) = ($1, $2, $-[0]);
            my $page = page_of($name, $file);
            cite('page', $s, $at, $name, $page ? '' : 'no such page');
            check_heading($s, $at, "$name, \"$title\"", $page, anchor_of(join ' ', split ' ', $title)) if $page;
        }
        while ($flat =~ /"([^"]+)"\s+(?:section\s+)?(?:in|of)\s+(?:crid's\s+|the\s+)?($page_name)/g) {
            my ($title, $name, $at) = ($1, $2, $-[0]);
            my $page = page_of($name, $file);
            cite('page', $s, $at, $name, $page ? '' : 'no such page');
            check_heading($s, $at, "\"$title\" in $name", $page, anchor_of(join ' ', split ' ', $title)) if $page;
        }

        # Files by name, with a path or without: NAME.hpp, docs/NAME.md#anchor,
        # sql/functions/NAME.sql, test/tap/t/0xx_*.pl.
        while ($text =~ m{(?<![\w./\$\@{}%<*-])((?:\.\.?/)*(?:[\w.*<>-]+/)*[\w*<>-][\w.*<>-]*\.($ext_re))(?![\w(/])(#[\w-]+)?}g) {
            my ($cited, $ext, $anchor, $at) = ($1, $2, $3, $-[1]);
            next if $cited =~ m{\*|<|>} || $cited =~ /(?<![A-Za-z])(?:NAME|[A-Z]|X{2,})(?![A-Za-z])/;
            next if basename($cited) =~ /^\Q$extension\E--[0-9]/;
            my ($first) = $cited =~ m{^(?:\.\.?/)*([^/]+)/};
            next if defined $first && !$dir_names{$first};
            my $found = resolve($cited, $file);
            next if !$found && ($ext eq 'c' || $ext eq 'h' || ($ext eq 'conf' && $cited !~ m{/}));
            my $kind = $ext eq 'md' ? 'page' : 'file';
            cite($kind, $s, $at, $cited, $found || generated($cited, $file) ? '' : 'no such file');
            check_heading($s, $at, "$cited$anchor", $found, substr($anchor, 1)) if $found && $anchor && $ext eq 'md';
        }
    }
}

# --- report ------------------------------------------------------------------------
my %what = (page => 'docs pages', heading => 'headings', file => 'repository files');
my $failed = 0;
for my $kind (qw(page heading file)) {
    my $n = $found{$kind} // 0;
    my @bad = @{ $dangling{$kind} // [] };
    print "# dangling: $_\n" for @bad;
    if (@bad) { print "not ok - ", scalar @bad, " of $n citations of $what{$kind} lead nowhere\n"; $failed = 1 }
    elsif ($n == 0) { print "not ok - no citations of $what{$kind} found\n"; $failed = 1 }
    else { print "ok - $n citations of $what{$kind} lead to them\n" }
}
# A floor that a reader which stopped finding citations falls below: one
# citation for every two files read (this repository has more than one a
# file).
my $total = 0;
$total += $_ for values %found;
my $floor = int(@scanned / 2);
my $line = "$total citations found in " . scalar(@scanned) . " files (at least $floor expected)";
if ($total >= $floor) { print "ok - $line\n" } else { print "not ok - $line\n"; $failed = 1 }
exit $failed;
