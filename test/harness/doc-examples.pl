#!/usr/bin/perl
# The examples of the README and docs/ that print their result, for
# check-doc-examples.sh, which runs them on a throwaway server.
#
#   doc-examples.pl extract OUT PAGE...   one folder OUT/NNN per ```sql block
#                                         with an example to run; prints the
#                                         examples it skips
#   doc-examples.pl run BLOCK HOST PORT   runs a block's statements in order and
#                                         prints one "ok"/"not ok" line a result
#
# An example is a statement of a ```sql block that prints its result:
#   SELECT f(1);   -- 10: prose        the value before ": " or " (" (a word
#                                      with a digit, true/false, or a timestamp)
#   SELECT f(2);
#                  -- 10 (prose)       the same, on the line below
#   SELECT f(3);   -- e.g. 0190c0de-... a value of the clock or of chance: only
#                                      its shape is checked (a uuid of that
#                                      version, an integer, a timestamp)
#   SELECT f(4);   -- ERROR 55000 ...  the SQLSTATE it fails with
#   SELECT * FROM f(5);                a table as psql prints it, in comment
#   --  a | b                          lines of "--" and a space right below
#   --  1 | 2                          the statement
# Other trailing comments are prose. A block that starts with
# "-- postgresql.conf: a = 1, b = 'x'" runs on a server with those settings
# (its crid.registry_database is where it runs). Every statement of a block
# runs, in order, in one database of a fresh server; only the results are
# compared, but no statement may fail with 55000 (a setting the block does
# not state) unless it says so. A result of a statement that calls now(),
# clock_timestamp() or random() is checked for its shape. Skipped, with the
# reason: a plan (it depends on a database's data), a table with "..." (an
# excerpt), a statement with "..." or $1 (not runnable as written),
# settings with a <placeholder>.
use strict;
use warnings;
use JSON::PP;
use File::Path qw(make_path);

my $json = JSON::PP->new->canonical->pretty;

sub slurp { open my $fh, '<', $_[0] or die "cannot read $_[0]: $!"; local $/; return scalar <$fh> }
sub spew { open my $fh, '>', $_[0] or die "cannot write $_[0]: $!"; print $fh $_[1]; close $fh }

# The code and the comment of a line of SQL, and the dollar quote open at its
# end (a function body spans lines; a -- inside quotes is no comment).
sub split_line {
    my ($line, $dollar) = @_;
    my ($quote, $i) = ('', 0);
    while ($i < length $line) {
        my $rest = substr($line, $i);
        if ($dollar) {
            if ($rest =~ /^\Q$dollar\E/) { $i += length $dollar; $dollar = '' } else { $i++ }
        } elsif ($quote) {
            $quote = '' if substr($line, $i, 1) eq "'";
            $i++;
        } elsif ($rest =~ /^(\$\w*\$)/) {
            $dollar = $1;
            $i += length $1;
        } elsif ($rest =~ /^'/) {
            $quote = "'";
            $i++;
        } elsif ($rest =~ /^--/) {
            return (substr($line, 0, $i), substr($line, $i), $dollar);
        } else {
            $i++;
        }
    }
    return ($line, undef, $dollar);
}

# What a trailing comment says the result is: [mode, value], or nothing for prose.
my $timestamp = qr/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?[+-]\d\d(?::\d\d)?/;
sub result_of {
    my ($comment) = @_;
    $comment =~ s/^--\s*//;
    return ['error', $1] if $comment =~ /^ERROR ([0-9A-Z]{5})\b/;
    my $mode = $comment =~ s/^e\.g\.\s+// ? 'shape' : 'exact';
    my ($value) = $comment =~ /^($timestamp)/;
    ($value) = $comment =~ /^(\S+?)(?::\s|:$|;|,|\s\(|\s*$)/ unless defined $value;
    return undef unless defined $value && ($value =~ /\d/ || $value =~ /^(true|false)$/);
    # A word followed by more words is prose ("10 rows were ..." is not 10).
    my $after = substr($comment, length $value);
    return undef if $after =~ /^\s+[A-Za-z]/ && $after !~ /^\s+\(/;
    return [$mode, $value];
}

# The statements of a block, each with the lines that print its result.
sub statements {
    my ($lines, $first_line) = @_;
    my (@out, $open, $dollar, $adjacent);
    $dollar = '';
    for my $n (0 .. $#$lines) {
        my $line = $lines->[$n];
        my $at = $first_line + $n;
        my ($code, $comment);
        ($code, $comment, $dollar) = split_line($line, $dollar);
        if ($code =~ /^\s*$/ && !$open) {
            my $last = $adjacent ? $out[-1] : undef;
            if ($last && defined $comment && $code eq '' && $comment =~ /^--(?: [ -]|\s*$)/ &&
                ($last->{output} || !defined $last->{comment})) {
                push @{ $last->{output} }, $comment;
            } elsif ($last && defined $comment && $code ne '' && !defined $last->{comment} && !$last->{output}) {
                $last->{comment} = $comment;    # a result on the line below
            } else {
                $adjacent = 0;
            }
            next;
        }
        $open //= { sql => '', line => $at };
        $open->{sql} .= "$code\n" if $code =~ /\S/;
        if (!$dollar && $code =~ /;\s*$/) {
            $open->{comment} = $comment;
            $open->{last_line} = $at;
            push @out, $open;
            undef $open;
            $adjacent = 1;
        }
    }
    push @out, $open if $open;
    return @out;
}

# What to do with a statement: a check, a skip (with why), or nothing.
sub classify {
    my ($st, $settings_ok) = @_;
    my ($check, $why);
    if ($st->{output}) {
        my @rows = map { s/^--//r } @{ $st->{output} };
        if ($rows[0] !~ /\|/) { $why = 'a plan, which depends on the data of a database' }
        elsif (grep { /\.\.\./ } @rows) { $why = 'an excerpt of a table' }
        else { $check = { mode => 'table', rows => \@rows } }
    } elsif (defined $st->{comment} && (my $r = result_of($st->{comment}))) {
        $check = { mode => $r->[0], value => $r->[1] };
    }
    return () unless $check || $why;
    $why //= 'settings with a placeholder' unless $settings_ok;
    $why //= 'elided or parameterised SQL' if $st->{sql} =~ /\.\.\.|\$\d/;
    $check->{mode} = 'shape' if $check && $check->{mode} eq 'exact' && $st->{sql} =~ /\b(now|clock_timestamp|random)\s*\(/i;
    return (skip => $why) if $why;
    return (check => $check);
}

sub label {
    my ($page, $st) = @_;
    (my $sql = $st->{sql}) =~ s/\s+/ /g;
    $sql =~ s/^\s+|;?\s*$//g;
    $sql = substr($sql, 0, 70) . '...' if length $sql > 73;
    return "$page:$st->{last_line} $sql";
}

sub extract {
    my ($out, @pages) = @_;
    my $blocks = 0;
    for my $page (@pages) {
        my @lines = split /\n/, slurp($page), -1;
        for (my $i = 0; $i < @lines; $i++) {
            next unless $lines[$i] =~ /^```sql\s*$/;
            my $start = $i + 1;
            my $end = $start;
            $end++ while $end < @lines && $lines[$end] !~ /^```\s*$/;
            my @block = @lines[$start .. $end - 1];
            $i = $end;
            my ($settings, $settings_ok) = ([], 1);
            if (@block && $block[0] =~ /^--\s*postgresql\.conf:\s*(.*)$/) {
                $settings = [ map { s/^\s+|\s+$//gr } $1 =~ /((?:[^,']|'[^']*')+)/g ];
                $settings_ok = !grep { /</ || !/^[\w.]+\s*=\s*\S/ } @$settings;
            }
            my ($database) = map { /^crid\.registry_database\s*=\s*'?([^']+?)'?$/ ? $1 : () } @$settings;
            my (@steps, $checks);
            for my $st (statements(\@block, $start + 1)) {
                my %what = classify($st, $settings_ok);
                my $label = label($page, $st);
                print "ok - $label # SKIP $what{skip}\n" if $what{skip};
                push @steps, { sql => $st->{sql}, label => $label, $what{check} ? (check => $what{check}) : () };
                $checks++ if $what{check};
            }
            next unless $checks;
            my $dir = sprintf '%s/%03d', $out, ++$blocks;
            make_path($dir);
            spew("$dir/block.json",
                $json->encode({ page => $page, line => $start, settings => $settings,
                                database => $database // 'postgres', steps => \@steps }));
        }
    }
}

# --- running a block -----------------------------------------------------------------
my ($dir, $host, $port, $database);
sub psql {
    my ($sql, @options) = @_;
    spew("$dir/statement.sql", $sql);
    my $psql = $ENV{PSQL} // 'psql';
    my $out = `'$psql' -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=sqlstate @options -h '$host' -p '$port' -U postgres -d '$database' -f '$dir/statement.sql' 2>'$dir/stderr'`;
    return ($? == 0, $out, slurp("$dir/stderr"));
}

# The rows of a psql table, cells trimmed, without the rule under the header.
sub table_rows {
    return map { join '|', map { s/^\s+|\s+$//gr } split /\|/, $_, -1 }
        grep { /\S/ && !/^\s*-+(\+-+)*\s*$/ } @_;
}

# A pattern for values like an example: a uuid of its version, an integer, a
# timestamp, or its letters and digits in runs of any length.
sub shape_of {
    my ($v) = @_;
    return qr/^[0-9a-f]{8}-[0-9a-f]{4}-$1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
        if $v =~ /^[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
    return qr/^-?\d+$/ if $v =~ /^-?\d+$/;
    return qr/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?[+-]\d\d(?::\d\d)?$/ if $v =~ /^$timestamp$/;
    my $p = join '', map { /^\d+$/ ? '\d+' : /^[A-Za-z]+$/ ? '[A-Za-z]+' : quotemeta } $v =~ /(\d+|[A-Za-z]+|.)/g;
    return qr/^$p$/;
}

sub run {
    ($dir, $host, $port) = @_;
    my $block = JSON::PP->new->decode(slurp("$dir/block.json"));
    $database = $block->{database};
    $ENV{PGTZ} = 'UTC';
    for my $step (@{ $block->{steps} }) {
        my $check = $step->{check};
        my ($ok, $out, $err) = psql($step->{sql}, $check && $check->{mode} eq 'table' ? ('-P', 'footer=off') : ('-A', '-t'));
        chomp $out;
        my ($error) = $err =~ /ERROR:\s+([0-9A-Z]{5})/;
        # The other statements may fail (many are sketches of a schema), but
        # not for want of a setting the block does not state.
        if (!$check) {
            print "not ok - settings: $step->{label} fails with 55000 under its block's settings\n",
                map { "#   $_\n" } split /\n/, $err
                if ($error // '') eq '55000';
            next;
        }
        my ($passed, $said);
        my $v = $check->{value};
        if ($check->{mode} eq 'error') {
            $passed = !$ok && ($error // '') eq $v;
            $said = "fails with $v";
        } elsif (!$ok) {
            $passed = 0;
            $said = 'runs';
        } elsif ($check->{mode} eq 'exact') {
            my %bool = (true => 't', false => 'f');
            $passed = $out eq ($bool{$v} // $v);
            $said = "is $v";
        } elsif ($check->{mode} eq 'shape') {
            $passed = $out =~ shape_of($v);
            $said = "is shaped like $v";
        } else {
            my @want = table_rows(@{ $check->{rows} });
            $passed = join("\n", @want) eq join("\n", table_rows(split /\n/, $out));
            $said = 'prints the table shown';
        }
        my $mode = { error => 'exact', table => 'exact' }->{ $check->{mode} } // $check->{mode};
        print $passed ? 'ok' : 'not ok', " - $mode: $step->{label} $said\n";
        print map { "#   $_\n" } split /\n/, ($ok ? $out : $err) unless $passed;
    }
}

my $mode = shift // '';
if ($mode eq 'extract') { extract(@ARGV) }
elsif ($mode eq 'run') { run(@ARGV) }
else { die "usage: doc-examples.pl extract OUT PAGE... | run BLOCK HOST PORT\n" }
