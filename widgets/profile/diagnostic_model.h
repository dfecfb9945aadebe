// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"

#include <QAbstractTableModel>

#include <vector>

namespace dice {

// The compiler's messages for the file in the editor, one row each, in the compiler's order.
// Columns: severity, line, column, message.
class DiagnosticModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SeverityColumn, LineColumn, ColumnColumn, MessageColumn, ColumnCount };
    enum Role {
        // Numbers as numbers, severities from the most serious, for a sorting proxy.
        SortRole = Qt::UserRole + 1,
        // Where the message points, 1-based; the column is 0 when the compiler gave none.
        LineRole,
        ColumnRole
    };

    explicit DiagnosticModel(QObject* parent = nullptr);

    void setDiagnostics(const std::vector<Diagnostic>& diagnostics);
    // Headers and severities in the language now installed.
    void retranslate();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    static QString severityName(Severity severity);

private:
    std::vector<Diagnostic> m_diagnostics;
};

} // namespace dice
