#!/usr/bin/env perl
# check-script-names.pl [--known SCRIPT]... SCRIPT...: refuses, in crid's
# install and upgrade scripts, what would resolve through the search_path of
# the superuser who runs them, in a schema others may create in
# (sql/README.md, "Install and upgrade scripts"): in DO blocks, views and
# top-level SELECTs, a call of one of crid's functions not written
# @extschema@.NAME, and an operator not written OPERATOR(pg_catalog.X).
# Function bodies are not read: they run with SET search_path or are bound
# when created; test/tap/t/010_script_traps.pl runs them among traps.
# Prints each finding as FILE:LINE: what; exits 1 if there is one.
use strict;
use warnings;

# --known FILE: a script whose functions are crid's too (the earlier
# scripts of the chain), not checked itself.
my (@files, @known);
while (@ARGV)
{
	my $arg = shift @ARGV;
	if ($arg eq '--known') { push @known, shift @ARGV; }
	else { push @files, $arg; }
}
@files or die "usage: $0 [--known SCRIPT]... SCRIPT...\n";
# crid's function names: every function a script of the chain creates.
my %crid;
for my $f (@files, @known)
{
	open my $fh, '<', $f or die "$f: $!";
	local $/;
	my $text = <$fh>;
	$crid{ lc $1 } = 1 while $text =~ /CREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)\s+(?:\@extschema\@\.)?([a-z_][a-z0-9_]*)/gi;
}

my $found = 0;
for my $f (@files)
{
	open my $fh, '<', $f or die "$f: $!";
	local $/;
	my $text = <$fh>;
	# The statements to check: DO blocks, views, top-level SELECTs (not
	# those of a function's body: every other dollar-quoted text is blanked,
	# its lines kept). Each is taken with the line it starts on.
	my @stmts;
	while ($text =~ /^(DO\s+(\$[a-z_]*\$).*?\2\s*;)/gims)
	{
		push @stmts, [ $1, $-[1] ];
	}
	(my $outside = $text) =~ s/(\$[a-z_]*\$)(.*?)\1/my $b = $2; $b =~ s{[^\n]}{ }g; "\$\$$b\$\$"/gise;
	while ($outside =~ /^(CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\b.*?;[ \t]*$|SELECT\b.*?;[ \t]*$)/gims)
	{
		push @stmts, [ $1, $-[1] ];
	}
	for my $s (sort { $a->[1] <=> $b->[1] } @stmts)
	{
		my ($stmt, $start) = @$s;
		my $line = 1 + (substr($text, 0, $start) =~ tr/\n//);
		my $code = $stmt;
		# Comments and string literals (their text is no code); the DO
		# block's own quotes.
		$code =~ s/--[^\n]*//g;
		$code =~ s/^DO\s+(\$[a-z_]*\$)//i;
		$code =~ s/\$[a-z_]*\$\s*;\s*$//i;
		$code =~ s/'(?:[^']|'')*'/''/g;
		# What is qualified, and what is no operator: casts, named
		# arguments, PL/pgSQL assignments, the view's options.
		$code =~ s/OPERATOR\(pg_catalog\.[^)\s]+\)/ /g;
		$code =~ s/::|=>|:=/ /g;
		$code =~ s/WITH\s*\(security_(?:invoker|barrier)\s*=\s*(?:true|false)\)/ /gi;
		$code =~ s/\bSELECT\s+\*\s+FROM\b/SELECT FROM/gi;
		$code =~ s/\(\s*\*\s*\)/()/g;
		my @why;
		while ($code =~ /(?<![.\w\@])([a-z_][a-z0-9_]*)\s*\(/gi)
		{
			push @why, "$1() of crid without \@extschema\@." if $crid{ lc $1 };
		}
		# A lone - before a number is its sign.
		(my $ops = $code) =~ s/(?<![\w)\s])\s*-\s*(?=\d)/ /g;
		while ($ops =~ /(<>|!=|<=|>=|<<|>>|\|\||[=<>*\/+%-])/g)
		{
			push @why, "operator $1 without OPERATOR(pg_catalog.$1)";
		}
		next unless @why;
		$found = 1;
		my %seen;
		print "$f:$line: $_\n" for grep { !$seen{$_}++ } @why;
	}
}
exit $found;
