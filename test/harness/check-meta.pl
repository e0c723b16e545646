#!/usr/bin/perl
# Validates a META.json against the PGXN Meta Spec 1.0.0
# (https://pgxn.org/spec/): required keys, the types and syntax of every key
# the spec defines, and only x_/X_ keys beyond them. Prints each problem and
# exits 1 when there is one. Core Perl only (JSON::PP).
use strict;
use warnings;
use JSON::PP;

my $file = shift // 'META.json';
open my $fh, '<', $file or die "cannot open $file: $!";
my $meta = eval { JSON::PP->new->decode(do { local $/; <$fh> }) };
if (!$meta) { print "$file is not valid JSON: $@"; exit 1 }

my @problems;
sub problem { push @problems, join '', @_ }

# Semantic versions as the spec requires them (major.minor.patch, an optional
# prerelease made of letters and digits after a dash).
sub is_semver { defined $_[0] && !ref $_[0] && $_[0] =~ /\A(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[a-zA-Z][a-zA-Z0-9]*)?\z/ }
sub is_string { defined $_[0] && !ref $_[0] && length $_[0] }
sub is_term { is_string($_[0]) && $_[0] !~ /[\/\\\x00-\x1f]/ && $_[0] !~ /\A\s*\z/ && length $_[0] >= 2 }

my %licenses = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd gfdl_1_2
  gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0 mozilla_1_1 openssl perl_5 postgresql qpl_1_0
  ssleay sun zlib open_source restricted unrestricted unknown);

my %known = map { $_ => 1 } qw(abstract description generated_by license maintainer meta-spec name no_index
  prereqs provides release_status resources tags version);
for my $key (sort keys %$meta)
{
	problem("unknown key \"$key\" (custom keys start with x_)") unless $known{$key} || $key =~ /\Ax_/i;
}
for my $key (qw(abstract maintainer license meta-spec name provides version))
{
	problem("required key \"$key\" is missing") unless exists $meta->{$key};
}

problem('name must be at least two characters without / \\ or control characters') unless is_term($meta->{name});
problem("version \"", $meta->{version} // '', "\" is not a semantic version") unless is_semver($meta->{version});
problem('abstract must be a non-empty string') unless is_string($meta->{abstract});
problem('description must be a string') if exists $meta->{description} && !is_string($meta->{description});
problem('generated_by must be a string') if exists $meta->{generated_by} && !is_string($meta->{generated_by});

my $m = $meta->{maintainer};
problem('maintainer must be a string or a non-empty list of strings')
  unless is_string($m) || (ref $m eq 'ARRAY' && @$m && !grep { !is_string($_) } @$m);

my $l = $meta->{license};
if (ref $l eq 'HASH') { problem('license must name at least one license') unless %$l }
elsif (ref $l eq 'ARRAY') { problem("unknown license \"$_\"") for grep { !$licenses{$_} } @$l }
else { problem("unknown license \"", $l // '', "\"") unless defined $l && $licenses{$l} }

my $spec = $meta->{'meta-spec'};
problem('meta-spec must be an object with version 1.0.0')
  unless ref $spec eq 'HASH' && ($spec->{version} // '') eq '1.0.0';

my $provides = $meta->{provides};
if (ref $provides ne 'HASH' || !%$provides) { problem('provides must name at least one extension') }
else
{
	for my $ext (sort keys %$provides)
	{
		my $p = $provides->{$ext};
		if (ref $p ne 'HASH') { problem("provides.$ext must be an object"); next }
		problem("provides.$ext.file is missing") unless is_string($p->{file});
		problem("provides.$ext.file \"$p->{file}\" does not exist") if is_string($p->{file}) && !-e $p->{file};
		problem("provides.$ext.version is not a semantic version") unless is_semver($p->{version});
		problem("provides.$ext.docfile \"$p->{docfile}\" does not exist") if exists $p->{docfile} && !-e $p->{docfile};
		for my $k (sort keys %$p)
		{
			problem("provides.$ext has unknown key \"$k\"") unless $k =~ /\A(file|version|abstract|docfile)\z/ || $k =~ /\Ax_/i;
		}
	}
}

if (exists $meta->{prereqs})
{
	my $pr = $meta->{prereqs};
	if (ref $pr ne 'HASH') { problem('prereqs must be an object') }
	else
	{
		for my $phase (sort keys %$pr)
		{
			problem("prereqs has unknown phase \"$phase\"") unless $phase =~ /\A(configure|build|runtime|test|develop)\z/;
			for my $rel (sort keys %{ $pr->{$phase} || {} })
			{
				problem("prereqs.$phase has unknown relationship \"$rel\"")
				  unless $rel =~ /\A(requires|recommends|suggests|conflicts)\z/;
				my $deps = $pr->{$phase}{$rel};
				for my $dep (sort keys %{ ref $deps eq 'HASH' ? $deps : {} })
				{
					my $want = $deps->{$dep};
					# A version, 0 for any, or comparisons such as ">= 1.2.0, != 1.5.0".
					my $ok = defined $want && ($want eq '0' || !grep {
						!/\A\s*(?:(?:==|!=|>=|<=|>|<)\s*)?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[a-zA-Z][a-zA-Z0-9]*)?\s*\z/
					} split /,/, $want);
					problem("prereqs.$phase.$rel.$dep \"", $want // '', "\" is not a version range") unless $ok;
				}
			}
		}
	}
}

problem('release_status must be stable, testing or unstable')
  if exists $meta->{release_status} && ($meta->{release_status} // '') !~ /\A(stable|testing|unstable)\z/;

if (exists $meta->{tags})
{
	my $t = $meta->{tags};
	problem('tags must be a list of strings of at most 255 characters')
	  unless ref $t eq 'ARRAY' && !grep { !is_string($_) || length $_ > 255 } @$t;
}

if (exists $meta->{resources})
{
	my $r = $meta->{resources};
	if (ref $r ne 'HASH') { problem('resources must be an object') }
	else
	{
		for my $k (sort keys %$r)
		{
			problem("resources has unknown key \"$k\"") unless $k =~ /\A(homepage|bugtracker|repository)\z/ || $k =~ /\Ax_/i;
		}
		problem('resources.homepage must be a URI') if exists $r->{homepage} && ($r->{homepage} // '') !~ m{\A\w+://};
	}
}

if (exists $meta->{no_index})
{
	my $n = $meta->{no_index};
	problem('no_index must be an object of file and directory lists')
	  unless ref $n eq 'HASH' && !grep { !/\A(file|directory)\z/ } keys %$n;
}

print "META.json: $_\n" for @problems;
exit(@problems ? 1 : 0);
